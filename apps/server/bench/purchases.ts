/**
 * Purchases per second with the race: many customers buying one agent at once, agent after agent.
 * For each of `agents` agents, `customersPerAgent` customers send `attemptsPerAgent` purchases
 * between them (private and shared mixed), 32 in flight; all but one private or four shared sales
 * per agent answer 409: agentAlreadyLeased, or priceChanged when the first sale ended the agent's
 * New price (the default pricing rules price New agents apart). Afterwards the books are checked: at most one private
 * or four shared leases per agent, every balance equal to its ledger, one charge per lease.
 *
 * `measurePurchases(apiUrl, issuer, { databaseUrl })` runs against a server already listening on
 * that database (`npm run bench:api` calls it) and removes what it added. Run directly,
 * `node apps/server/bench/purchases.ts [--agents 20] [--attempts 200] [--customers 50]` makes a fresh
 * database `pm_bench_purchases` on BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432),
 * starts the API in its own process pinned to one core (`taskset -c 1`, when present) and prints
 * the row for docs/benchmarks.md.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ZAgent } from '@pm/contracts';
import { createDb, type DbHandle, migrateDb } from '@pm/db';
import { buildAccount, buildAgent, buildNode } from '@pm/db/testing';
import pg from 'pg';
import { startTestIssuer, type TestIssuer } from '../src/test/issuer.ts';
import { countQueries, perAnswer, type QueryCounts, readQueryCounts } from './query-count.ts';

const AUDIENCE = 'https://api.bench.test';
const CONCURRENCY = 32;

/** One row of the benchmark table (the shape `bench/api.ts` prints). */
export interface PurchaseRun {
  name: string;
  cache: '-';
  /** Purchase answers (201 and 409) per second. */
  rps: number;
  p50: number;
  p99: number;
  /** Answers other than 201 and the race's 409s (agentAlreadyLeased, priceChanged), and broken rules. */
  failures: number;
  /** Leases sold. */
  sales: number;
  attempts: number;
  /** CPU time of the API process per purchase answer, when its pid was given (Linux /proc). */
  cpuMsPerAttempt?: number | undefined;
  /** Database round trips of the API process per answer, when it counts them (QUERY_COUNT_FILE). */
  queriesPerAttempt?: number | undefined;
}

export interface PurchaseBenchOptions {
  /** The database the server runs on (rows are added, then removed). */
  databaseUrl: string;
  agents?: number;
  attemptsPerAgent?: number;
  customersPerAgent?: number;
  /** The API process, to report its CPU time per answer. */
  serverPid?: number | undefined;
  /** Where that process writes its query counts (it runs `countQueries` on this file). */
  queryCountFile?: string | undefined;
}

/** User plus system CPU milliseconds a process has used (Linux), or undefined. */
function cpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

/** Runs the race against `apiUrl` and returns its row. */
export async function measurePurchases(
  apiUrl: string,
  issuer: TestIssuer,
  options: PurchaseBenchOptions,
): Promise<PurchaseRun> {
  const agentCount = options.agents ?? 20;
  const perAgent = options.attemptsPerAgent ?? 200;
  const customersPerAgent = options.customersPerAgent ?? 50;
  const db = await createDb({ databaseUrl: options.databaseUrl, maxConnections: 4 });
  const tag = `bench-buy-${Date.now().toString(36)}`;
  try {
    const node = await buildNode(db, { id: `${tag}-node` });
    const agentIds: string[] = [];
    for (let i = 0; i < agentCount; i++) {
      agentIds.push((await buildAgent(db, { id: `${tag}-a${i}`, nodeId: node.id, cc: 'US' })).id);
    }
    // A customer buys at most a few times (the route's rate limit is per user): fresh ones per agent.
    const headers: Record<string, string>[] = [];
    for (let i = 0; i < agentCount * customersPerAgent; i++) {
      const { userId } = await buildAccount(db, { userId: `${tag}-u${i}`, balanceC: 1_000_000 });
      headers.push({ authorization: `Bearer ${await issuer.sign(userId, { permissions: [] })}` });
    }
    // The prices the shop shows, as a buyer would send them.
    const prices = new Map<string, { exc: number; shr: number }>();
    for (const id of agentIds) {
      const res = await fetch(`${apiUrl}/agents/${id}`, { headers: headers[0] });
      const agent = ZAgent.parse(await res.json());
      prices.set(id, { exc: agent.priceExcC, shr: agent.priceShrC });
    }
    let seed = 1;
    const random = () => {
      seed = (seed * 1664525 + 1013904223) >>> 0;
      return seed / 2 ** 32;
    };
    const attempts = agentIds.flatMap((agentID, a) =>
      Array.from({ length: perAgent }, (_, k) => {
        const exc = random() < 0.5;
        const price = prices.get(agentID)!;
        return {
          headers: {
            ...headers[a * customersPerAgent + (k % customersPerAgent)]!,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ agentID, expPriceC: exc ? price.exc : price.shr, exc }),
        };
      }),
    );

    const latencies: number[] = [];
    const statuses = new Map<string, number>();
    let next = 0;
    const counted = options.serverPid !== undefined && options.queryCountFile !== undefined;
    const countsNow = (): Promise<QueryCounts | undefined> =>
      counted ? readQueryCounts(options.serverPid!, options.queryCountFile!) : Promise.resolve(undefined);
    const queriesBefore = await countsNow();
    const cpuBefore = cpuMs(options.serverPid);
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < attempts.length) {
          const attempt = attempts[next++]!;
          const t0 = performance.now();
          const res = await fetch(`${apiUrl}/leases`, { method: 'POST', ...attempt });
          const body = (await res.json()) as { errorCode?: string };
          latencies.push(performance.now() - t0);
          const key = res.status === 409 ? `409 ${body.errorCode}` : String(res.status);
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = cpuMs(options.serverPid);
    const queriesAfter = await countsNow();
    const queries =
      queriesBefore && queriesAfter ? perAnswer(queriesBefore, queriesAfter, attempts.length) : undefined;
    if (queries) {
      console.error(`database round trips per answer: ${queries.total.toFixed(2)}`);
      for (const [statement, n] of queries.top.slice(0, 12)) console.error(`  ${n.toFixed(3)}  ${statement}`);
    }
    latencies.sort((x, y) => x - y);
    const broken = await checkBooks(db, tag);
    // Sold, taken, or the price moved when the agent stopped being New (its first sale) all count.
    const expected = ['201', '409 agentAlreadyLeased', '409 priceChanged'];
    const unexpected = [...statuses].filter(([s]) => !expected.includes(s)).reduce((n, [, c]) => n + c, 0);
    console.error(
      `purchase race: answers ${JSON.stringify(Object.fromEntries(statuses))}, ${broken.join('; ') || 'books consistent'}`,
    );
    return {
      name: `POST /leases, the race: ${customersPerAgent} customers x ${perAgent} attempts per agent, ${agentCount} agents`,
      cache: '-',
      rps: Math.round(attempts.length / seconds),
      p50: Math.round(percentile(latencies, 50)),
      p99: Math.round(percentile(latencies, 99)),
      failures: unexpected + broken.length,
      sales: statuses.get('201') ?? 0,
      attempts: attempts.length,
      cpuMsPerAttempt:
        cpuBefore === undefined || cpuAfter === undefined
          ? undefined
          : (cpuAfter - cpuBefore) / attempts.length,
      queriesPerAttempt: queries?.total,
    };
  } finally {
    await cleanUp(db, tag).catch((e) => console.error(`cleaning up ${tag}: ${e}`));
    await db.close();
  }
}

/** The race's promises, as broken-rule descriptions (empty when all hold). */
async function checkBooks(db: DbHandle, tag: string): Promise<string[]> {
  const like = `${tag}-%`;
  const overSold = await db.query<{ agent_id: string }>(
    `SELECT agent_id FROM leases WHERE agent_id LIKE $1 GROUP BY agent_id
     HAVING NOT ((count(*) FILTER (WHERE exc) = 1 AND count(*) = 1) OR (count(*) FILTER (WHERE exc) = 0 AND count(*) <= 4))`,
    [like],
  );
  const unbalanced = await db.query<{ user_id: string }>(
    `SELECT a.user_id FROM accounts a LEFT JOIN txrecords t ON t.user_id = a.user_id
     WHERE a.user_id LIKE $1 GROUP BY a.user_id, a.balance_c HAVING a.balance_c <> coalesce(sum(t.amt_c), 0)`,
    [like],
  );
  const uncovered = await db.query<{ user_id: string }>(
    `SELECT a.user_id FROM accounts a WHERE a.user_id LIKE $1 AND
       (SELECT count(*) FROM txrecords t WHERE t.user_id = a.user_id AND t.type = 'purchase')
       <> (SELECT count(*) FROM leases l WHERE l.user_id = a.user_id)`,
    [like],
  );
  return [
    ...overSold.map((r) => `agent ${r.agent_id} oversold`),
    ...unbalanced.map((r) => `${r.user_id}: balance is not its ledger`),
    ...uncovered.map((r) => `${r.user_id}: charges and leases differ`),
  ];
}

async function cleanUp(db: DbHandle, tag: string): Promise<void> {
  const like = `${tag}-%`;
  await db.query('DELETE FROM leases WHERE agent_id LIKE $1', [like]);
  await db.query('DELETE FROM agents WHERE id LIKE $1', [like]);
  await db.query('DELETE FROM txrecords WHERE user_id LIKE $1', [like]);
  await db.query('DELETE FROM accounts WHERE user_id LIKE $1', [like]);
  // The node's spare package ports, when something recorded them, go with it.
  await db.query('DELETE FROM package_ports WHERE node_id LIKE $1', [like]);
  await db.query('DELETE FROM gateway_nodes WHERE id LIKE $1', [like]);
}

/** `--serve`: the API's http role on DATABASE_URL, printing `LISTENING <url>` (the standalone run's child). */
async function serve(): Promise<void> {
  if (process.env.QUERY_COUNT_FILE) countQueries(process.env.QUERY_COUNT_FILE);
  const { start } = await import('../src/index.ts');
  const db = await createDb({ databaseUrl: process.env.DATABASE_URL!, maxConnections: 10 });
  const server = await start({
    roles: ['http'],
    host: '127.0.0.1',
    port: 0,
    db,
    oidc: {
      issuer: process.env.OIDC_ISSUER!,
      audience: AUDIENCE,
      algorithms: ['ES256'],
      permissionsClaim: 'permissions',
    },
    corsOrigins: [],
    logLevel: 'warn',
  });
  console.log(`LISTENING ${server.apiUrl}`);
  process.on('SIGTERM', () => void server.close().finally(() => process.exit(0)));
}

async function startPinnedServer(
  databaseUrl: string,
  issuer: TestIssuer,
  queryCountFile: string,
): Promise<{ url: string; child: ChildProcess; pinned: boolean }> {
  const script = fileURLToPath(import.meta.url);
  const pinned = spawnSync('taskset', ['-c', '1', 'true']).status === 0;
  const [cmd, cmdArgs] = pinned
    ? ['taskset', ['-c', '1', process.execPath, script, '--serve']]
    : [process.execPath, [script, '--serve']];
  const child = spawn(cmd, cmdArgs as string[], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      OIDC_ISSUER: issuer.issuer,
      QUERY_COUNT_FILE: queryCountFile,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  for await (const line of createInterface({ input: child.stdout! })) {
    const m = /^LISTENING (\S+)/.exec(line);
    if (m) return { url: m[1]!, child, pinned };
  }
  throw new Error('the API server exited before listening');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      agents: { type: 'string', default: '20' },
      attempts: { type: 'string', default: '200' },
      customers: { type: 'string', default: '50' },
    },
  });
  const server = (process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432').replace(/\/+$/, '');
  const admin = new pg.Client({ connectionString: `${server}/postgres` });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS pm_bench_purchases WITH (FORCE)');
  await admin.query('CREATE DATABASE pm_bench_purchases');
  await admin.end();
  const databaseUrl = `${server}/pm_bench_purchases`;
  const db = await createDb({ databaseUrl });
  await migrateDb(db);
  await db.close();
  const issuer = await startTestIssuer(AUDIENCE);
  const queryCountFile = join(tmpdir(), `pm-bench-queries-${process.pid}.json`);
  const { url, child, pinned } = await startPinnedServer(databaseUrl, issuer, queryCountFile);
  try {
    const run = await measurePurchases(url, issuer, {
      databaseUrl,
      agents: Number(values.agents),
      attemptsPerAgent: Number(values.attempts),
      customersPerAgent: Number(values.customers),
      serverPid: child.pid,
      queryCountFile,
    });
    const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
    const cpu =
      run.cpuMsPerAttempt === undefined ? '' : `, ${run.cpuMsPerAttempt.toFixed(2)} ms of its CPU per answer`;
    console.error(`API process ${pinned ? 'pinned to core 1' : 'not pinned (no taskset)'}${cpu}`);
    console.log(
      `| ${date} | ${run.name} (${run.attempts} in all, ${run.sales} sold) | - | ${run.rps} | ${run.p50} | ${run.p99} | - | ${run.failures === 0 ? 'consistent' : `**${run.failures} failures**`} |`,
    );
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
    await issuer.close();
  }
}

if (process.argv.includes('--serve')) await serve();
else if (import.meta.main) await main();
