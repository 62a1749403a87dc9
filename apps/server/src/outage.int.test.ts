/**
 * A database outage survived (issue 38 item 5): the several-hosts fleet (test/fleet.ts: two APIs, two
 * workers, two gateway nodes, agents) on a PostgreSQL cluster of the test's own, stopped as a crash
 * stops it (`pg_ctl stop -m immediate`) for OUTAGE_SECONDS under traffic and started again.
 * - A lease sold before keeps relaying from the node's memory; every byte the customer moved is
 *   metered once, after the return (the meter keeps what it could not write).
 * - Sales and shop reads answer 503 with Retry-After within ANSWER_LIMIT_MS: never a 500, never a hang.
 * - APIs, workers and gateways are back by themselves within RECOVERY_LIMIT_MS of the return: /readyz
 *   200, a sale on each API, a lease sold after the return relays (the node's LISTEN reconnected).
 * - A job queued before the outage and due during it runs after, once.
 * OUTAGE_SECONDS defaults to 15 in CI: long enough for every pool, LISTEN connection and pg-boss loop
 * to fail and back off to its longest delay (5 s); the 30 s is run by hand
 * (`OUTAGE_SECONDS=30 npm run test:integration -- outage`) and reported in docs/deploying.md.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TLease, ZLease } from '@pm/contracts';
import { buildAccount, buildLease, createTestDatabase, newUserId, type TestDatabase } from '@pm/db/testing';
import { netnsAvailable } from '@pm/devnet/netns';
import { expireLeasesJob } from './modules/leases/leases.jobs.ts';
import { createJobRuntime } from './platform/jobs.ts';
import { createLogger } from './platform/logger.ts';
import { type Fleet, startFleet } from './test/fleet.ts';
import { agentsOnline, callApi, curlThrough, type Moved, waitUntil } from './test/fleet-client.ts';
import { checkApiRestart, checkWorkerRestart } from './test/fleet-restarts.ts';
import { type PrivatePg, privatePgUnavailable, startPrivatePg } from './test/private-pg.ts';

const OUTAGE_MS = Number(process.env.OUTAGE_SECONDS ?? 15) * 1000;
/**
 * The bound: everything back by itself within 10 s of the database's return.
 * OUTAGE_RECOVERY_MS widens it on a machine too loaded for the bound to mean anything.
 */
const RECOVERY_LIMIT_MS = Number(process.env.OUTAGE_RECOVERY_MS ?? 10_000);
/** A request during the outage answers within this: the pool's 5 s connection timeout and a margin. */
const ANSWER_LIMIT_MS = 7_000;

const netns = netnsAvailable();
const skip = !netns.ok ? `skipped: ${netns.reason}` : privatePgUnavailable();

let pg: PrivatePg;
let db: TestDatabase;
let fleet: Fleet;
/** The outage test's customer traffic: stopped by the test, or by `after` when the test failed. */
let traffic = false;
let relaying: Promise<void> = Promise.resolve();

const addr = (host: string) => fleet.net.hosts[host]!.address;
const staff = newUserId('pricer');

/** A customer with money buys `agentIndex`'s agent through API `api`. */
async function buy(api: 0 | 1, agentIndex: number, deadlineMs = 15_000) {
  const buyer = await buildAccount(db, { userId: newUserId('outage'), balanceC: 10_000 });
  const res = await callApi(fleet, fleet.apis[api], {
    method: 'POST',
    path: '/leases',
    userId: buyer.userId,
    body: { agentID: fleet.agents[agentIndex]!.id, expPriceC: 500, exc: true, probe: false },
    deadlineMs,
  });
  return { res, userId: buyer.userId };
}

/** The distinct warnings and errors the processes logged (what an operator sees), `label: msg`. */
function warningsIn(logs: string): string[] {
  const seen = new Set<string>();
  for (const line of logs.split('\n')) {
    const m = /^\[([^\]]+)\] (\{.*\})$/.exec(line);
    if (!m) continue;
    try {
      const entry = JSON.parse(m[2]!) as { level?: number; msg?: string; error?: string };
      if ((entry.level ?? 0) >= 40)
        seen.add(`${m[1]!.replace(/-\d+$/, '')}: ${entry.msg} ${entry.error ?? ''}`.trim().slice(0, 160));
    } catch {
      // Not a log entry.
    }
  }
  return [...seen];
}

/** A lease's first SOCKS5 port with its credentials, as curl takes it. */
const proxyOf = (l: TLease) => `${l.socks.user}:${l.socks.pwd}@${l.socks.ip}:${l.socks.ports[0]}`;

/** The totals of a lease's traffic in the database. */
async function metered(
  leaseId: string,
): Promise<{ up: number; down: number; hourUp: number; hourDown: number }> {
  const [row] = await db.query<{ up: string; down: string; hour_up: string; hour_down: string }>(
    `SELECT l.in_bytes AS up, l.out_bytes AS down,
            (SELECT coalesce(sum(in_bytes), 0) FROM lease_traffic_hourly h WHERE h.lease_id = l.id) AS hour_up,
            (SELECT coalesce(sum(out_bytes), 0) FROM lease_traffic_hourly h WHERE h.lease_id = l.id) AS hour_down
       FROM leases l WHERE l.id = $1`,
    [leaseId],
  );
  return {
    up: Number(row!.up),
    down: Number(row!.down),
    hourUp: Number(row!.hour_up),
    hourDown: Number(row!.hour_down),
  };
}

describe('a database outage and process restarts survived', { skip: skip ?? false }, () => {
  before(
    async () => {
      pg = await startPrivatePg();
      db = await createTestDatabase('outage', pg.url);
      fleet = await startFleet(db, { agentsPerHost: 2 });
      await waitUntil(() => agentsOnline((s, p) => db.query(s, p), fleet.agents), 120_000, 'agents online');
      const prices = await callApi(fleet, fleet.apis[0], {
        method: 'PUT',
        path: '/pricing/rules',
        userId: staff,
        body: { rules: [{ priceExcC: 500, priceShrC: 200 }] },
        staff: true,
      });
      assert.equal(prices.status, 200, prices.body);
    },
    { timeout: 600_000 },
  );
  after(async () => {
    traffic = false;
    await relaying;
    await fleet?.close();
    await db?.drop().catch(() => {});
    pg?.close();
  });

  test(`PostgreSQL stopped for ${OUTAGE_MS / 1000} s under traffic and started again`, {
    timeout: OUTAGE_MS + 120_000,
  }, async () => {
    // A lease sold before the outage, relaying from the customers' host.
    const sold = await buy(0, 0);
    assert.equal(sold.res.status, 201, sold.res.body);
    const lease = ZLease.parse(JSON.parse(sold.res.body));
    const proxy = proxyOf(lease);
    const moved = { up: 0, down: 0, transfers: 0, failed: [] as string[] };
    const count = (m: Moved, mustWork: boolean) => {
      moved.up += m.up;
      moved.down += m.down;
      if (m.ok) moved.transfers++;
      else if (mustWork) moved.failed.push(m.out);
      return m.ok;
    };
    // Until the node has the lease, attempts are refused (their bytes, if any, counted all the same).
    await waitUntil(
      async () => count(await curlThrough(fleet, proxy, `${fleet.targetUrl}/ip`), false),
      10_000,
      'lease relays',
    );

    // A job due in the middle of the outage: a lease that ended and an expire job for it.
    const dueLease = await buildLease(db, fleet.agents[3]!.id, {
      userId: (await buildAccount(db, { balanceC: 0 })).userId,
      exc: true,
      untilMs: Date.now() - 60_000,
    });
    const runtime = createJobRuntime({ db, log: createLogger({ level: 'silent' }), isWorker: false });
    const jobId = await runtime.send(expireLeasesJob, {}, { delaySeconds: Math.ceil(OUTAGE_MS / 2000) });
    await runtime.stop(2000);
    assert.ok(jobId);

    // Traffic all along: one transfer of 64 KiB after another until the test says stop.
    traffic = true;
    relaying = (async () => {
      while (traffic) count(await curlThrough(fleet, proxy, `${fleet.targetUrl}/speed`, 10), true);
    })();

    pg.stop();
    const stoppedAt = Date.now();
    const during: { what: string; status: number; retryAfter: string | null; ms: number; body: string }[] =
      [];
    while (Date.now() - stoppedAt < OUTAGE_MS - ANSWER_LIMIT_MS) {
      for (const [i, base] of fleet.apis.entries()) {
        const sale = await callApi(fleet, base, {
          method: 'POST',
          path: '/leases',
          userId: sold.userId,
          body: { agentID: fleet.agents[1]!.id, expPriceC: 500, exc: true, probe: false },
          deadlineMs: ANSWER_LIMIT_MS + 5000,
        });
        during.push({ what: `sale on API ${i}`, ...sale });
        const shop = await callApi(fleet, base, { method: 'GET', path: '/agents', userId: sold.userId });
        during.push({ what: `shop on API ${i}`, ...shop });
      }
      await new Promise((r) => setTimeout(r, 500)); // sleeps: calls spread over the outage, which lasts OUTAGE_MS of real time
    }
    const transfersDuring = moved.transfers;
    await waitUntil(async () => Date.now() - stoppedAt >= OUTAGE_MS, OUTAGE_MS, 'outage over');
    pg.start();
    const backAt = Date.now();

    // Back by themselves: every process's /readyz, a sale on each API, a new lease relaying.
    const readyz: [string, string][] = [
      ['api-a', fleet.apis[0]],
      ['api-b', fleet.apis[1]],
      ['w1', `http://${addr('w1')}:7301`],
      ['w2', `http://${addr('w2')}:7301`],
    ];
    const readyMs = Object.fromEntries(
      await Promise.all(
        readyz.map(async ([name, base]) => {
          const ready = async () =>
            (await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(5000) })).status === 200;
          const ms = await waitUntil(ready, RECOVERY_LIMIT_MS, `${name}: /readyz 200`).catch((e: Error) => {
            throw new Error(`${e.message}\n${fleet.logs()}`);
          });
          return [name, ms] as const;
        }),
      ),
    );
    const attempts: string[] = [];
    const after = await Promise.all(
      ([0, 1] as const).map(async (api) => {
        let bought: TLease | undefined;
        await waitUntil(
          async () => {
            const { res } = await buy(api, 1 + api, 8000);
            attempts.push(`API ${api} +${Date.now() - backAt} ms: ${res.status}`);
            if (res.status === 201) bought = ZLease.parse(JSON.parse(res.body));
            return bought !== undefined;
          },
          RECOVERY_LIMIT_MS,
          `a sale on API ${api}`,
        );
        const soldMs = Date.now() - backAt;
        // Its node hears of it (the LISTEN connection is back) and relays it.
        await waitUntil(
          async () => (await curlThrough(fleet, proxyOf(bought!), `${fleet.targetUrl}/ip`)).ok,
          RECOVERY_LIMIT_MS,
          `the lease sold on API ${api} relays`,
        );
        return { api, soldMs, relaysMs: Date.now() - backAt };
      }),
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${attempts.join('\n')}\n${fleet.logs()}`);
    });
    traffic = false;
    await relaying;

    // Every byte the customer moved, metered once.
    const meteredMs = await waitUntil(
      async () => {
        const m = await metered(lease.id);
        return m.up >= moved.up && m.down >= moved.down;
      },
      RECOVERY_LIMIT_MS,
      'the traffic metered',
    ).catch(() => -1);
    const m = await metered(lease.id);
    // The job due during the outage ran after the return, once.
    await waitUntil(
      async () =>
        (await db.query('SELECT 1 FROM leases WHERE id = $1 AND ended_at IS NOT NULL', [dueLease.id]))
          .length === 1,
      RECOVERY_LIMIT_MS,
      'the job due during the outage ran',
    );
    const [job] = await db.query<{ state: string; completed_on: Date }>(
      'SELECT state, completed_on FROM pgboss.job WHERE id = $1',
      [jobId],
    );

    const summary = {
      warnings: warningsIn(fleet.logs()),
      outageMs: backAt - stoppedAt,
      transfers: moved.transfers,
      transfersDuringOutage: transfersDuring,
      failedTransfers: moved.failed.length,
      movedUp: moved.up,
      movedDown: moved.down,
      metered: m,
      readyMs,
      salesBackMs: after,
      attempts,
      meteredMs,
      statuses: during.map((d) => `${d.what}: ${d.status} (${d.ms} ms, Retry-After ${d.retryAfter})`),
    };
    console.log(JSON.stringify(summary, null, 1));
    assert.deepEqual(moved.failed, [], 'every transfer through the lease during the outage worked');
    for (const a of after)
      assert.ok(a.soldMs <= RECOVERY_LIMIT_MS, `API ${a.api} sold ${a.soldMs} ms after the return`);
    for (const d of during) {
      assert.ok(d.ms <= ANSWER_LIMIT_MS, `${d.what} answered in ${d.ms} ms`);
      // A shop read may come from a cache; a sale never can.
      if (d.what.startsWith('shop') && d.status === 200) continue;
      assert.equal(d.status, 503, `${d.what}: ${d.body}\n${fleet.logs()}`);
      assert.ok(Number(d.retryAfter) > 0, `${d.what}: Retry-After`);
    }
    assert.ok(transfersDuring > 0);
    assert.deepEqual(
      { up: m.up, down: m.down, hourUp: m.hourUp, hourDown: m.hourDown },
      { up: moved.up, down: moved.down, hourUp: moved.up, hourDown: moved.down },
      'metered exactly what the customer moved',
    );
    assert.equal(job?.state, 'completed');
    assert.ok(job!.completed_on.getTime() >= backAt - 1000, 'the job ran after the return');
  });

  test('API B and worker 1 restarted under load: nothing answers 500 or hangs, nothing lost or twice', {
    timeout: 400_000,
  }, async () => {
    const api = await checkApiRestart(fleet, db, fleet.agents[3]!.id);
    const worker = await checkWorkerRestart(fleet, db);
    console.log(JSON.stringify({ api, worker }));
  });
});
