/**
 * One bad row never stops the lifecycle jobs: a lease whose `until` carries microseconds renews like
 * any other, and a lease whose settling throws (a trigger refuses its update) is rolled back, logged
 * with its id, counted in `/metrics` and skipped while the rest of the batch is settled.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  buildAccount,
  buildAgent,
  buildLease,
  buildNode,
  createTestDatabase,
  type TestDatabase,
} from '@pm/db/testing';
import { cents } from '@pm/money';
import { waitFor } from '@pm/testkit';
import { bindModuleJobs, type Composition, compose } from '../../compose.ts';
import type { ItemFailures } from '../../platform/jobs.ts';
import { createLogger } from '../../platform/logger.ts';
import { createLedgerService } from '../ledger/ledger.service.ts';
import { expireLeasesJob } from './leases.jobs.ts';
import { createLeaseService } from './leases.service.ts';
import { createSettleService } from './leases.settle.ts';

const H = 3600_000;
const T0 = Date.UTC(2031, 2, 3, 12, 0, 0);

let db: TestDatabase;
let nodeId: string;

before(async () => {
  db = await createTestDatabase('lease_settle_poison');
  nodeId = (await buildNode(db)).id;
  // The poison: any update of a lease whose note says so fails, as a broken row or constraint would.
  await db.query(`
    CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF OLD.socks_user LIKE 'poison%' THEN RAISE EXCEPTION 'poisoned lease %', OLD.id; END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER refuse_poison BEFORE UPDATE ON leases FOR EACH ROW EXECUTE FUNCTION refuse_poison();
  `);
});
after(async () => {
  await db?.drop();
});

/** A customer with $100 and a lease bought 24 hours before `untilMs` for $10. */
async function lease(untilMs: number, o: { autoRenew?: boolean; socksUser?: string } = {}) {
  const account = await buildAccount(db, { balanceC: 10_000 });
  const agent = await buildAgent(db, { nodeId });
  return buildLease(db, agent.id, {
    userId: account.userId,
    start: new Date(untilMs - 24 * H),
    untilMs,
    purchasePriceC: cents(1000),
    autoRenew: o.autoRenew ?? false,
    ...(o.socksUser ? { socksUser: o.socksUser } : {}),
  });
}

const row = async (id: string) =>
  (
    await db.query<{ until: Date; ended_at: Date | null; end_reason: string | null; micros: string }>(
      `SELECT until, ended_at, end_reason, extract(microseconds FROM until)::bigint % 1000 AS micros
       FROM leases WHERE id = $1`,
      [id],
    )
  )[0]!;

/** Failures reported to the batch, by lease id. */
function recorder(): ItemFailures & { ids: string[]; errors: unknown[] } {
  const ids: string[] = [];
  const errors: unknown[] = [];
  return {
    ids,
    errors,
    failed(id, err) {
      ids.push(id);
      errors.push(err);
    },
  };
}

describe('leases.expire with a bad row', () => {
  test('a lease whose until has microseconds renews; a poisoned one is skipped, the rest settled', async () => {
    await db.query('UPDATE leases SET ended_at = until WHERE ended_at IS NULL');
    const micro = await lease(T0, { autoRenew: true });
    await db.query("UPDATE leases SET until = until + interval '123 microseconds' WHERE id = $1", [micro.id]);
    assert.equal((await row(micro.id)).micros, '123');
    const poison = await lease(T0 - 2 * H, { socksUser: 'poison01' });
    const good = await lease(T0 - H);
    const settle = createSettleService({
      db: db.db,
      ledger: createLedgerService({ db: db.db }),
      leases: createLeaseService({ db: db.db, now: () => T0 + 60_000 }),
      now: () => T0 + 60_000,
    });
    const failures = recorder();
    const report = await settle.settleDueLeases(100, failures);
    assert.deepEqual(report, { renewed: [micro.id], ended: [good.id], refunded: [] });
    assert.deepEqual(failures.ids, [poison.id]);
    assert.match(String((failures.errors[0] as Error).cause), /poisoned lease/);
    // The microsecond lease moved 24 hours on from its own end (to the millisecond).
    assert.equal((await row(micro.id)).until.getTime(), T0 + 24 * H);
    assert.equal((await row(good.id)).end_reason, 'expired');
    assert.equal((await row(poison.id)).ended_at, null);
    // The next run tries the poisoned lease again, and only it.
    const again = recorder();
    assert.deepEqual(await settle.settleDueLeases(100, again), { renewed: [], ended: [], refunded: [] });
    assert.deepEqual(again.ids, [poison.id]);
    await db.query('UPDATE leases SET ended_at = until WHERE id = $1', [poison.id]).catch(() => {});
  });

  test('the job completes past a poisoned lease, logs its id and counts it in /metrics', {
    timeout: 60_000,
  }, async () => {
    await db.query("DELETE FROM leases WHERE socks_user LIKE 'poison%'").catch(() => {});
    await db.query('UPDATE leases SET ended_at = until WHERE ended_at IS NULL');
    const poison = await lease(Date.now() - 2 * H, { socksUser: 'poison02' });
    const good = await lease(Date.now() - H);
    const lines: string[] = [];
    const log = createLogger({ level: 'warn', stream: { write: (l) => void lines.push(l) } });
    let composition: Composition | undefined;
    try {
      composition = compose({ db, log, isWorker: true, jobPollingIntervalMs: 500 });
      await composition.jobs.work(
        bindModuleJobs(composition).filter((j) => j.definition.name === 'leases.expire'),
      );
      const jobId = await composition.jobs.send(expireLeasesJob, {});
      const state = async () =>
        (await db.query<{ state: string }>('SELECT state FROM pgboss.job WHERE id = $1', [jobId]))[0]?.state;
      await waitFor(async () => (await state()) === 'completed', {
        timeoutMs: 30_000,
        intervalMs: 200,
        what: 'the job completed',
      });
      assert.equal((await row(good.id)).end_reason, 'expired');
      assert.equal((await row(poison.id)).ended_at, null);
      const metric = await composition.platform.metrics.getSingleMetricAsString('jobs_item_failures_total');
      assert.match(metric, /jobs_item_failures_total\{job="leases\.expire"\} 1$/m);
      const logged = lines.map((l) => JSON.parse(l) as { msg: string; item?: string; job?: string });
      assert.ok(
        logged.some((l) => l.item === poison.id && l.job === 'leases.expire' && /skipped/.test(l.msg)),
        lines.join('\n'),
      );
    } finally {
      await composition?.close();
    }
  });
});
