/**
 * `npm run bench:api`: the market API under load. A database `pm_bench_api` on the local
 * PostgreSQL (BENCH_PG_URL, default postgres://postgres@127.0.0.1:5432) seeded with 1,000,000
 * agents (`seed-shop.ts`), kept between runs: a database whose seed version and agent count match
 * is migrated and reused (the seed takes minutes). The API in its own process (`api-server.ts`);
 * autocannon at concurrency 32 against every query the web's shop and static shop make (filters,
 * the stars filter, segments, deep pages, country totals, one agent) and GET /healthz as the
 * ceiling; purchases per second with the race (`purchases.ts`); first with the shop's shared-answer
 * window on (as deployed), then off (every request runs its SQL). Reports the API's resident
 * memory; prints one Markdown table for docs/benchmarks.md.
 *
 * Flags: --agents N (1000000), --duration S (10 per run, after 2 s of warm-up), --fresh (seed anew
 * even when the kept database matches), --no-cache-off (skip the window-off pass), --only TEXT (the
 * requests whose name contains TEXT, besides /healthz).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createDb, type DbHandle, migrateDb } from '@pm/db';
import autocannon from 'autocannon';
import pg from 'pg';
import { startTestIssuer, type TestIssuer } from '../src/test/issuer.ts';
import { measurePurchases, type PurchaseRun } from './purchases.ts';
import { SEED_VERSION, seedShop } from './seed-shop.ts';

const { values: args } = parseArgs({
  options: {
    agents: { type: 'string', default: '1000000' },
    duration: { type: 'string', default: '10' },
    fresh: { type: 'boolean', default: false },
    'no-cache-off': { type: 'boolean', default: false },
    only: { type: 'string' },
  },
});
const AGENTS = Number(args.agents);
const DURATION_S = Number(args.duration);
const CONNECTIONS = 32;
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const DB_NAME = 'pm_bench_api';
const AUDIENCE = 'https://api.bench.test';
const P99_TARGET_MS = 50;

interface Run {
  name: string;
  cache: 'on' | 'off' | '-';
  rps: number;
  p50: number;
  p99: number;
  failures: number;
  /** CPU time of the API process per answer (Linux /proc), which a busy machine does not distort. */
  cpuUs?: number | undefined;
  /** The API process's resident memory after the run (MiB, Linux /proc). */
  rssMiB?: number | undefined;
}
let purchases: PurchaseRun | undefined;

/** What a seeded bench database says of itself (COMMENT ON DATABASE): reused only when it matches. */
const SEED_MARK = `pm bench seed v${SEED_VERSION}, ${AGENTS} agents`;

async function prepareDatabase(): Promise<DbHandle> {
  const url = `${PG_URL.replace(/\/+$/, '')}/${DB_NAME}`;
  if (!args.fresh) {
    const db = await createDb({ databaseUrl: url });
    const [row] = await db
      .query<{ mark: string | null }>(
        `SELECT shobj_description(oid, 'pg_database') AS mark FROM pg_database WHERE datname = current_database()`,
      )
      .catch(() => [{ mark: null }]);
    if (row?.mark === SEED_MARK) {
      // Migrations added since the seed (an index, a column) apply to the kept rows.
      await migrateDb(db);
      await db.query('ANALYZE');
      console.error(`reusing ${DB_NAME} (${SEED_MARK})`);
      return db;
    }
    await db.close();
  }
  const admin = new pg.Client({ connectionString: `${PG_URL.replace(/\/+$/, '')}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB_NAME}`);
  await admin.end();
  const db = await createDb({ databaseUrl: url });
  await migrateDb(db);
  const started = performance.now();
  await seedShop(db, AGENTS);
  await db.query(`COMMENT ON DATABASE ${DB_NAME} IS '${SEED_MARK}'`);
  console.error(`seeded ${AGENTS} agents in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return db;
}

/** The queries' parameters, picked from the data: the largest US region, a populous /16, an agent on sale. */
async function pickFilters(
  db: DbHandle,
): Promise<{ reg: string; ip1: number; ip2: number; agentId: string }> {
  const [reg] = await db.query<{ reg: string }>(
    `SELECT reg FROM agents WHERE cc = 'US' GROUP BY reg ORDER BY count(*) DESC LIMIT 1`,
  );
  const [ip] = await db.query<{ p: string }>(
    `SELECT split_part(ip, '.', 1) || '.' || split_part(ip, '.', 2) AS p FROM agents WHERE cc = 'US'
     GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
  );
  const [ip1, ip2] = ip!.p.split('.').map(Number);
  const [agent] = await db.query<{ id: string }>(
    `SELECT id FROM agents WHERE cc = 'US' AND online AND NOT is_static AND node_id IS NOT NULL ORDER BY id LIMIT 1`,
  );
  return { reg: reg!.reg, ip1: ip1!, ip2: ip2!, agentId: agent!.id };
}

const queryCountFile = join(tmpdir(), `pm-bench-api-queries-${process.pid}.json`);

async function startServer(
  issuer: TestIssuer,
  cacheMs: number,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./api-server.ts', import.meta.url))], {
    env: {
      ...process.env,
      DATABASE_URL: `${PG_URL.replace(/\/+$/, '')}/${DB_NAME}`,
      OIDC_ISSUER: issuer.issuer,
      OIDC_AUDIENCE: AUDIENCE,
      SHOP_CACHE_MS: String(cacheMs),
      QUERY_COUNT_FILE: queryCountFile,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  // A loaded machine takes long to load the server's modules.
  const timer = setTimeout(() => child.kill(), 180_000);
  for await (const line of lines) {
    const m = /^LISTENING (\S+)/.exec(line);
    if (m) {
      clearTimeout(timer);
      return { url: m[1]!, child };
    }
  }
  throw new Error('the API server exited before listening');
}

async function stopServer(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await once(child, 'exit');
}

/** The resident memory of a process in MiB (Linux /proc), or undefined. */
function rssMiB(pid: number | undefined): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Math.round(Number(kb) / 1024);
  } catch {
    return undefined;
  }
}

/** User plus system CPU milliseconds a process has used (Linux, 10 ms ticks), or undefined. */
function cpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

async function measure(
  name: string,
  cache: Run['cache'],
  url: string,
  headers: Record<string, string>,
  serverPid: number | undefined,
): Promise<Run> {
  await autocannon({ url, connections: CONNECTIONS, duration: 2, headers });
  const cpuBefore = cpuMs(serverPid);
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers });
  const cpuAfter = cpuMs(serverPid);
  const run: Run = {
    name,
    cache,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    failures: r.errors + r.timeouts + r.non2xx,
    cpuUs:
      cpuBefore === undefined || cpuAfter === undefined || r.requests.total === 0
        ? undefined
        : Math.round(((cpuAfter - cpuBefore) * 1000) / r.requests.total),
    rssMiB: rssMiB(serverPid),
  };
  console.error(
    `${name} (window ${cache}): ${run.rps} req/s, p50 ${run.p50} ms, p99 ${run.p99} ms, ${run.cpuUs ?? '?'} µs API CPU each, RSS ${run.rssMiB ?? '?'} MiB, failures ${run.failures}`,
  );
  return run;
}

const db = await prepareDatabase();
const filters = await pickFilters(db);
await db.close();
const issuer = await startTestIssuer(AUDIENCE);
const region = `reg=${encodeURIComponent(filters.reg)}`;
// The shop's list (apps/web/src/features/shop/queries.ts): the desktop page asks with segments, the
// mobile list without; each filter of the filter row, and the stars slider (exstars).
const listQueries: [string, string][] = [
  ['country only', 'cc=US'],
  ['country, region, connection', `cc=US&${region}&conn=wifi`],
  ['50-mile radius (10001)', 'cc=US&geozip=10001&georad=50'],
  [`IP prefix ${filters.ip1}.${filters.ip2}`, `cc=US&ip1=${filters.ip1}&ip2=${filters.ip2}`],
  ['clean score 7+', 'cc=US&exstars=7'],
];
const allRequests: [string, string][] = [
  ...listQueries.flatMap(([name, q]): [string, string][] => [
    [name, `/agents?${q}`],
    [`${name}, segments`, `/agents?${q}&segments=true`],
  ]),
  ['type private (no lease)', '/agents?cc=US&leases=none'],
  ['type shared (leased)', '/agents?cc=US&leases=some'],
  ['age new', '/agents?cc=US&fresh=true'],
  ['page 100 of 50 rows', '/agents?cc=US&cursor=4950&limit=50'],
  [
    'every filter, clean score 5+, segments',
    `/agents?cc=US&${region}&conn=wifi&leases=none&fresh=true&exstars=5&segments=true`,
  ],
  ['GET /totals/agents?all=true', '/totals/agents?all=true'],
  ['GET /agents/{id}', `/agents/${filters.agentId}`],
  ['static shop, US', '/static/list/?cc=US&limit=10'],
  ['static shop, US, city and ISP', '/static/list/?cc=US&city=City&isp=Net&limit=20'],
];
const requests = allRequests.filter(([name]) => args.only === undefined || name.includes(args.only));
const runs: Run[] = [];
for (const cacheMs of args['no-cache-off'] ? [1000] : [1000, 0]) {
  const cache = cacheMs > 0 ? 'on' : 'off';
  const { url, child } = await startServer(issuer, cacheMs);
  try {
    // A fresh token per pass (they last 5 minutes); the user need not have an account to shop.
    const headers = { authorization: `Bearer ${await issuer.sign('bench-shopper', { permissions: [] })}` };
    if (cacheMs > 0) runs.push(await measure('GET /healthz (ceiling)', '-', `${url}/healthz`, {}, child.pid));
    for (const [name, path] of requests) {
      runs.push(await measure(name, cache, `${url}${path}`, headers, child.pid));
    }
    // Purchases per second with the race (bench/purchases.ts, the purchase side's measurement).
    if (cacheMs > 0 && args.only === undefined) {
      purchases = await measurePurchases(url, issuer, {
        databaseUrl: `${PG_URL.replace(/\/+$/, '')}/${DB_NAME}`,
        serverPid: child.pid,
        queryCountFile,
      });
      console.error(
        `purchases: ${purchases.rps} answers/s, p99 ${purchases.p99} ms, ${purchases.sales} sales of ${purchases.attempts}, failures ${purchases.failures}`,
      );
    }
  } finally {
    await stopServer(child);
  }
}
await issuer.close();

const ceiling = runs[0]!;
const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || b === 0 ? '?' : (a / b).toFixed(2);
console.log(
  `| Date (UTC) | Request | Shared window | req/s | p50 ms | p99 ms | req/s vs /healthz | API CPU µs per answer | answers per CPU-second vs /healthz | API RSS MiB | p99 < ${P99_TARGET_MS} ms |`,
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of runs) {
  const ok =
    r.rps === 0
      ? '**no** (no answer within the run)'
      : r.p99 < P99_TARGET_MS && r.failures === 0
        ? 'yes'
        : `**no**${r.failures ? ` (${r.failures} failed)` : ''}`;
  console.log(
    `| ${date} | ${r.name} | ${r.cache} | ${r.rps} | ${r.p50} | ${r.p99} | ${ratio(r.rps, ceiling.rps)} | ${r.cpuUs ?? '?'} | ${ratio(ceiling.cpuUs, r.cpuUs)} | ${r.rssMiB ?? '?'} | ${ok} |`,
  );
}
if (purchases) {
  const p = purchases;
  const trips =
    p.queriesPerAttempt === undefined ? '' : `, ${p.queriesPerAttempt.toFixed(2)} DB round trips per answer`;
  console.log(
    `| ${date} | ${p.name}: ${p.sales} sales of ${p.attempts}${trips} | - | ${p.rps} | ${p.p50} | ${p.p99} | ${ratio(p.rps, ceiling.rps)} | ${p.cpuMsPerAttempt === undefined ? '?' : Math.round(p.cpuMsPerAttempt * 1000)} | ${ratio(ceiling.cpuUs, p.cpuMsPerAttempt === undefined ? undefined : p.cpuMsPerAttempt * 1000)} | - | ${p.failures === 0 ? 'books balance' : `**${p.failures} failed**`} |`,
  );
}
