/**
 * The outage test's process restarts (issue 38 item 5): API B restarted (SIGTERM, started again)
 * while customers read the shop and buy through both APIs, and worker 1 restarted while the
 * workers settle a batch of due leases. Nothing answers 500 or hangs, API A serves throughout,
 * every sale is made once (a buyer whose answer was lost retries on API A with the same
 * Idempotency-Key), every lease is settled once and the books balance.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { buildAccount, newUserId, type TestDatabase } from '@pm/db/testing';
import type { Fleet } from './fleet.ts';
import { type ApiAnswer, callApi, waitUntil } from './fleet-client.ts';
import { assertSettledOnce, buildDueLeases, dueCount, sendExpireJobs } from './fleet-jobs.ts';

/** A refusal that is no fault: the process is not listening (restarting) or the connection was cut. */
const isDown = (a: ApiAnswer) => a.status === -1;

interface Load {
  answers: { api: number; what: string; status: number; ms: number; retryAfter: string | null }[];
  stop(): Promise<void>;
}

/** Shop reads on both APIs, one after another, until stopped. */
function shopLoad(fleet: Fleet, userId: string): Load {
  const answers: Load['answers'] = [];
  let running = true;
  const loop = (async () => {
    for (let n = 0; running; n++) {
      const api = n % 2;
      const a = await callApi(fleet, fleet.apis[api as 0 | 1], { method: 'GET', path: '/agents', userId });
      answers.push({ api, what: 'shop', status: a.status, ms: a.ms, retryAfter: a.retryAfter });
    }
  })();
  return {
    answers,
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** A shared lease on `agentId` bought through API B, retried on API A with the same key if B is away. */
async function buyOnce(fleet: Fleet, db: TestDatabase, agentId: string, answers: Load['answers']) {
  const buyer = await buildAccount(db, { userId: newUserId('restart'), balanceC: 10_000 });
  const key = randomUUID();
  const body = { agentID: agentId, expPriceC: 200, exc: false, probe: false };
  for (let attempt = 0; attempt < 20; attempt++) {
    const api = attempt % 2 === 0 ? 1 : 0;
    const a = await callApi(fleet, fleet.apis[api as 0 | 1], {
      method: 'POST',
      path: '/leases',
      userId: buyer.userId,
      body,
      headers: { 'idempotency-key': key },
    });
    answers.push({ api, what: 'sale', status: a.status, ms: a.ms, retryAfter: a.retryAfter });
    if (a.status === 201) return buyer.userId;
    // 409: the same key still being answered by the other process (the sale kernel's turn).
    if (!isDown(a) && a.status !== 503 && a.status !== 409)
      throw new Error(`sale on API ${api}: ${a.status} ${a.body}\n${fleet.logs()}`);
    await new Promise((r) => setTimeout(r, 200)); // sleeps: a client's pause before retrying
  }
  throw new Error('sale not made in 20 attempts');
}

/** API B restarted under shop and sale load: see the file's comment. */
export async function checkApiRestart(fleet: Fleet, db: TestDatabase, agentId: string) {
  const reader = newUserId('reader');
  const load = shopLoad(fleet, reader);
  const started = Date.now();
  const restarting = fleet.restartApiB('SIGTERM');
  // Four buyers (an agent's shared places) while API B stops and starts.
  const buyers: string[] = [];
  for (let i = 0; i < 4; i++) {
    buyers.push(await buyOnce(fleet, db, agentId, load.answers));
    await new Promise((r) => setTimeout(r, 500)); // sleeps: the sales spread over the restart
  }
  await restarting;
  const restartMs = Date.now() - started;
  // API B answers by itself again.
  const backMs = await waitUntil(
    async () =>
      (await fetch(`${fleet.apis[1]}/readyz`, { signal: AbortSignal.timeout(2000) })).status === 200,
    10_000,
    'API B ready',
  );
  await load.stop();
  // A 503 with Retry-After is an answer (a pool that could not get a connection in 5 s on a loaded
  // machine); a 500, a hang or API A not listening is not.
  const answered = (a: Load['answers'][number]) => a.status === 503 && Number(a.retryAfter) > 0;
  const bad = load.answers.filter(
    (a) => (a.status >= 500 && !answered(a)) || a.status === 0 || (a.api === 0 && a.status < 0),
  );
  assert.deepEqual(bad, [], 'no 500, no hang, API A always answering');
  for (const userId of buyers) {
    const [row] = await db.query<{ leases: number; bal: string; sum: string }>(
      `SELECT (SELECT count(*)::int FROM leases WHERE user_id = $1) AS leases, a.balance_c AS bal,
              (SELECT coalesce(sum(amt_c), 0) FROM txrecords WHERE user_id = $1) AS sum
         FROM accounts a WHERE a.user_id = $1`,
      [userId],
    );
    assert.equal(row?.leases, 1, `${userId}: one lease`);
    assert.equal(Number(row.bal), 10_000 - 200, `${userId}: charged once`);
    assert.equal(Number(row.bal), Number(row.sum), `${userId}: the books balance`);
  }
  return {
    restartMs,
    backMs,
    answers: load.answers.length,
    refusedWhileDown: load.answers.filter((a) => a.status < 0).length,
    unavailable: load.answers.filter((a) => a.status === 503).length,
  };
}

/** Worker 1 restarted (SIGTERM) while both workers settle 200 due leases: each settled once. */
export async function checkWorkerRestart(fleet: Fleet, db: TestDatabase) {
  const leases = await buildDueLeases(db, 200, 2);
  const ids = leases.map((l) => l.id);
  await sendExpireJobs(db, 2);
  await waitUntil(async () => (await dueCount(db, ids)) < ids.length, 30_000, 'the batch started', 20);
  const started = Date.now();
  await fleet.workers.w1.stop('SIGTERM');
  fleet.workers.w1 = await fleet.restartWorker('w1');
  const restartMs = Date.now() - started;
  await sendExpireJobs(db, 1);
  await waitUntil(async () => (await dueCount(db, ids)) === 0, 60_000, 'every due lease settled');
  await assertSettledOnce(db, leases);
  return { restartMs };
}
