/**
 * The several-hosts test's job checks: due leases (test/fleet.ts's database) settled by the two
 * worker processes through `leases.expire` jobs sent as any API process sends them. Each lease must
 * be renewed (auto-renew) or ended exactly once and every balance must equal its ledger, with both
 * workers claiming at once and after one is killed with SIGKILL in the middle of a batch.
 */
import assert from 'node:assert/strict';
import { buildAccount, buildAgent, buildLease, buildNode, type TestDatabase } from '@pm/db/testing';
import { cents } from '@pm/money';
import { waitFor } from '@pm/testkit';
import { expireLeasesJob } from '../modules/leases/leases.jobs.ts';
import { createJobRuntime } from '../platform/jobs.ts';
import { createLogger } from '../platform/logger.ts';
import type { Fleet } from './fleet.ts';

export interface DueLease {
  id: string;
  userId: string;
  renews: boolean;
}

/** `count` leases that ended a minute ago: auto-renewing (with the money for it) or not. */
export async function buildDueLeases(
  db: TestDatabase,
  count: number,
  renewShare: number,
): Promise<DueLease[]> {
  const nodeId = (await buildNode(db)).id;
  const now = Date.now();
  const out: DueLease[] = [];
  for (let i = 0; i < count; i++) {
    const renews = i % renewShare === 0;
    const account = await buildAccount(db, { balanceC: 5000 });
    const agent = await buildAgent(db, { nodeId });
    const lease = await buildLease(db, agent.id, {
      userId: account.userId,
      exc: true,
      start: new Date(now - 24 * 3600_000 - 60_000),
      untilMs: now - 60_000,
      purchasePriceC: cents(1000),
      autoRenew: renews,
    });
    out.push({ id: lease.id, userId: account.userId, renews });
  }
  return out;
}

/** Leases of `ids` still due (neither renewed nor ended). */
export async function dueCount(db: TestDatabase, ids: string[]): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM leases WHERE id = ANY($1) AND ended_at IS NULL AND until <= now()',
    [ids],
  );
  return row!.n;
}

/** Each lease settled once (one renewal and its one ledger record, or ended) and the books balance. */
export async function assertSettledOnce(db: TestDatabase, leases: DueLease[]): Promise<void> {
  const rows = await db.query<{
    id: string;
    renewals: number;
    end_reason: string | null;
    records: number;
    bal: string;
    sum: string;
  }>(
    `SELECT l.id, l.renewals, l.end_reason,
            (SELECT count(*)::int FROM txrecords t WHERE t.user_id = l.user_id AND t.type = 'renewal') AS records,
            a.balance_c AS bal,
            (SELECT coalesce(sum(amt_c), 0) FROM txrecords t WHERE t.user_id = l.user_id) AS sum
       FROM leases l JOIN accounts a ON a.user_id = l.user_id WHERE l.id = ANY($1)`,
    [leases.map((l) => l.id)],
  );
  assert.equal(rows.length, leases.length);
  for (const l of leases) {
    const row = rows.find((r) => r.id === l.id)!;
    const want = l.renews
      ? { renewals: 1, end_reason: null, records: 1 }
      : { renewals: 0, end_reason: 'expired', records: 0 };
    assert.deepEqual(
      { renewals: row.renewals, end_reason: row.end_reason, records: row.records },
      want,
      `lease ${l.id}`,
    );
    assert.equal(Number(row.bal), Number(row.sum), `books of ${l.userId}`);
  }
}

/** Sends `n` `leases.expire` jobs, as an API process would; resolves with their ids. */
export async function sendExpireJobs(db: TestDatabase, n: number): Promise<string[]> {
  const runtime = createJobRuntime({ db, log: createLogger({ level: 'silent' }), isWorker: false });
  try {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = await runtime.send(expireLeasesJob, {});
      if (id) ids.push(id);
    }
    return ids;
  } finally {
    await runtime.stop(2000);
  }
}

/** Two workers claim six jobs over the same 60 due leases at once: each lease is settled once. */
export async function checkJobsOnce(db: TestDatabase): Promise<void> {
  const leases = await buildDueLeases(db, 60, 2);
  const jobs = await sendExpireJobs(db, 6);
  assert.equal(jobs.length, 6);
  await waitFor(
    async () =>
      (await dueCount(
        db,
        leases.map((l) => l.id),
      )) === 0,
    { timeoutMs: 30_000, what: 'leases settled' },
  );
  await waitFor(
    async () => {
      const [row] = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pgboss.job WHERE id = ANY($1::uuid[]) AND state = 'completed'",
        [jobs],
      );
      return row!.n === jobs.length;
    },
    { timeoutMs: 30_000, what: 'every job completed' },
  );
  await assertSettledOnce(db, leases);
}

/**
 * Worker 2 paused (SIGSTOP), worker 1 takes a job over 400 due leases and is killed with SIGKILL
 * once it has renewed some; worker 2 resumes, the next job finishes the batch: nothing lost, nothing twice.
 */
export async function checkWorkerKill(db: TestDatabase, fleet: Fleet): Promise<void> {
  const leases = await buildDueLeases(db, 400, 1);
  const ids = leases.map((l) => l.id);
  const { w1, w2 } = fleet.workers;
  w2.child.kill('SIGSTOP');
  let leftAtKill = 0;
  try {
    await sendExpireJobs(db, 1);
    await waitFor(async () => (await dueCount(db, ids)) <= ids.length - 10, {
      timeoutMs: 30_000,
      what: 'worker 1 started the batch',
      intervalMs: 20,
    });
    await w1.stop('SIGKILL');
    leftAtKill = await dueCount(db, ids);
  } finally {
    w2.child.kill('SIGCONT');
  }
  assert.ok(leftAtKill > 0, 'worker 1 was killed before it finished the batch');
  await sendExpireJobs(db, 1);
  await waitFor(async () => (await dueCount(db, ids)) === 0, {
    timeoutMs: 60_000,
    what: 'worker 2 finished the batch',
  });
  await assertSettledOnce(db, leases);
  console.log(`worker killed with ${leftAtKill} of ${ids.length} leases left; the other worker settled them`);
}
