/**
 * Crash trials (issue 29, item 3): a server process is killed with SIGKILL at a random moment of
 * a purchase, renew, refund, the lease jobs (expiry with auto-renew, auto-refund) and the payments
 * watcher's crediting, then started again on the same work. After every trial: every balance
 * equals its ledger, every lease has its one purchase record and every purchase record its lease,
 * no chain output is credited twice, and the restarted process finished the work (each piece done
 * exactly once). CRASH_TRIALS sets the trials per kind (default 10; the 50 by hand,
 * docs/benchmarks.md "Crash trials").
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildAccount, buildAgent, buildLease, buildNode, buildTrafficHour, newUserId } from '@pm/db/testing';
import { cents } from '@pm/money';
import { createTestApp, type TestApp, testPaymentsSettings } from './test/app.ts';
import { createCrashTrials } from './test/crash-trials.ts';
import { setFlatPrices } from './test/market.ts';
import { createPaymentsHarness, type PaymentsHarness } from './test/payments.ts';

const TRIALS = Number(process.env.CRASH_TRIALS ?? 10);
const [PRIVATE_C, SHARED_C] = [500, 200];
const H = 3600_000;

let t: TestApp;
let p: PaymentsHarness;
let nodeId: string;
let dir: string;
let crash: ReturnType<typeof createCrashTrials>;
before(async () => {
  t = await createTestApp('crash_trials', { payments: false });
  await setFlatPrices(t, PRIVATE_C, SHARED_C);
  nodeId = (await buildNode(t.db)).id;
  p = await createPaymentsHarness('crash_credit', { bonusPct: 0 });
  dir = mkdtempSync(join(tmpdir(), 'pm-crash-'));
  crash = createCrashTrials({ dir, trials: TRIALS });
});
after(async () => {
  await t?.close();
  await p?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** One kind's trials (`createCrashTrials`). */
const trials = (...args: Parameters<typeof crash.trials>) => crash.trials(...args);

/** Leases the tests build directly (bought before the trial): they have no purchase record. */
const seeded = new Set<string>();

/** Every balance equals the sum of its ledger records; every lease has one purchase record and back. */
async function assertBooks(db: TestApp['db']): Promise<void> {
  const off = await db.query<{ user_id: string; bal: string; sum: string }>(
    `SELECT a.user_id, a.balance_c AS bal, coalesce(sum(t.amt_c), 0) AS sum
       FROM accounts a LEFT JOIN txrecords t ON t.user_id = a.user_id
      GROUP BY a.user_id, a.balance_c HAVING a.balance_c <> coalesce(sum(t.amt_c), 0)`,
  );
  assert.deepEqual(off, [], 'balances that differ from their ledgers');
  const leaseWithout = await db.query<{ id: string; n: number }>(
    `SELECT l.id, count(t.id)::int AS n FROM leases l
       LEFT JOIN txrecords t ON t.type = 'purchase' AND t.user_id = l.user_id AND t.memo LIKE 'Lease ' || l.id || ' %'
      WHERE NOT (l.id = ANY($1))
      GROUP BY l.id HAVING count(t.id) <> 1`,
    [[...seeded]],
  );
  assert.deepEqual(leaseWithout, [], 'leases without exactly one purchase record');
  const paymentWithout = await db.query<{ id: number; memo: string }>(
    `SELECT t.id, t.memo FROM txrecords t WHERE t.type = 'purchase'
        AND NOT EXISTS (SELECT 1 FROM leases l WHERE t.memo LIKE 'Lease ' || l.id || ' %' AND l.user_id = t.user_id)`,
  );
  assert.deepEqual(paymentWithout, [], 'purchase records without their lease');
}

const records = (userId: string, type: string) =>
  t.db.query<{ amt_c: string; memo: string }>(
    'SELECT amt_c, memo FROM txrecords WHERE user_id = $1 AND type = $2',
    [userId, type],
  );

/** A customer with `balanceC` and a lease bought `agoMs` ago ending in `untilInMs`, built directly. */
async function leaseHolder(balanceC: number, lease: { agoMs: number; untilInMs: number; online?: boolean }) {
  const account = await buildAccount(t.db, { userId: newUserId('crash'), balanceC });
  const agent = await buildAgent(t.db, { nodeId, online: lease.online ?? true });
  const row = await buildLease(t.db, agent.id, {
    userId: account.userId,
    exc: true,
    start: new Date(Date.now() - lease.agoMs),
    untilMs: Date.now() + lease.untilInMs,
    purchasePriceC: cents(PRIVATE_C),
  });
  seeded.add(row.id);
  return { userId: account.userId, leaseId: row.id, agentId: agent.id };
}

describe('crash trials', { concurrency: false }, () => {
  test(`purchase: ${TRIALS} kills, each key sells one lease and charges once`, {
    timeout: 600_000,
  }, async () => {
    await trials(
      'purchase',
      t.db.url,
      async (trial) => {
        const items = [];
        const shared = await buildAgent(t.db, { nodeId });
        for (let i = 0; i < 6; i++) {
          const account = await buildAccount(t.db, { userId: newUserId('buyer'), balanceC: 5000 });
          // Three private leases on their own agents, three shares of one agent.
          const exc = i < 3;
          const agentId = exc ? (await buildAgent(t.db, { nodeId })).id : shared.id;
          items.push({
            key: `buy-${trial}-${i}`,
            userId: account.userId,
            agentId,
            exc,
            expPriceC: exc ? PRIVATE_C : SHARED_C,
          });
        }
        return { kind: 'purchase', items };
      },
      async (_trial, work) => {
        await assertBooks(t.db);
        for (const item of (work as { items: { userId: string; exc: boolean; key: string }[] }).items) {
          const leases = await t.db.query('SELECT id FROM leases WHERE user_id = $1', [item.userId]);
          assert.equal(leases.length, 1, `${item.key}: one lease`);
          const charged = await records(item.userId, 'purchase');
          assert.deepEqual(
            charged.map((r) => Number(r.amt_c)),
            [-(item.exc ? PRIVATE_C : SHARED_C)],
            `${item.key}: one charge`,
          );
        }
      },
    );
  });

  test(`renew: ${TRIALS} kills, each renewal extends once and charges once`, {
    timeout: 600_000,
  }, async () => {
    await trials(
      'renew',
      t.db.url,
      async (trial) => {
        const items = [];
        for (let i = 0; i < 6; i++) {
          const held = await leaseHolder(5000, { agoMs: 22 * H, untilInMs: 2 * H });
          items.push({ key: `renew-${trial}-${i}`, ...held });
        }
        return { kind: 'renew', items };
      },
      async (_trial, work) => {
        await assertBooks(t.db);
        for (const item of (work as { items: { userId: string; leaseId: string; key: string }[] }).items) {
          const [lease] = await t.db.query<{ renewals: number }>(
            'SELECT renewals FROM leases WHERE id = $1',
            [item.leaseId],
          );
          assert.equal(lease!.renewals, 1, `${item.key}: renewed once`);
          assert.equal((await records(item.userId, 'renewal')).length, 1, `${item.key}: one renewal charge`);
        }
      },
    );
  });

  test(`refund: ${TRIALS} kills, each refund ends the lease and credits once`, {
    timeout: 600_000,
  }, async () => {
    await trials(
      'refund',
      t.db.url,
      async (trial) => {
        const items = [];
        for (let i = 0; i < 6; i++) {
          const held = await leaseHolder(0, { agoMs: H, untilInMs: 23 * H, online: false });
          items.push({ key: `refund-${trial}-${i}`, ...held });
        }
        return { kind: 'refund', items };
      },
      async (_trial, work) => {
        await assertBooks(t.db);
        for (const item of (work as { items: { userId: string; leaseId: string; key: string }[] }).items) {
          const [lease] = await t.db.query<{ refunded_at: Date | null; ended_at: Date | null }>(
            'SELECT refunded_at, ended_at FROM leases WHERE id = $1',
            [item.leaseId],
          );
          assert.ok(lease!.refunded_at && lease!.ended_at, `${item.key}: refunded and ended`);
          assert.equal((await records(item.userId, 'refund')).length, 1, `${item.key}: one refund credit`);
        }
      },
    );
  });

  test(`lease jobs: ${TRIALS} kills of auto-renew, expiry and auto-refund, each lease settled once`, {
    timeout: 600_000,
  }, async () => {
    const kinds = ['renews', 'poor', 'plain', 'failing'] as const;
    await trials(
      'settle',
      t.db.url,
      async () => {
        const items = [];
        const nowMs = Date.now();
        for (let i = 0; i < 8; i++) {
          const kind = kinds[i % kinds.length]!;
          const account = await buildAccount(t.db, {
            userId: newUserId('job'),
            balanceC: kind === 'poor' ? 50 : 5000,
          });
          const agent = await buildAgent(t.db, { nodeId });
          const lease = await buildLease(t.db, agent.id, {
            userId: account.userId,
            exc: true,
            start: new Date(nowMs - 24 * H - 60_000),
            untilMs: kind === 'failing' ? nowMs + H : nowMs - 60_000,
            purchasePriceC: cents(1000),
            autoRenew: kind === 'renews' || kind === 'poor',
            ...(kind === 'failing' ? { reqs: 20, fails: 10 } : {}),
          });
          seeded.add(lease.id);
          if (kind === 'failing') {
            await buildTrafficHour(t.db, lease.id, {
              hour: new Date(nowMs),
              reqs: 20,
              fails: 10,
              agentFails: 10,
            });
          }
          items.push({ key: lease.id, userId: account.userId, leaseId: lease.id, kind });
        }
        return { kind: 'settle', expect: items };
      },
      async (_trial, work) => {
        await assertBooks(t.db);
        const expected = {
          renews: { renewals: 1, end_reason: null, records: [['renewal', -1000]] },
          poor: { renewals: 0, end_reason: 'autoRenewNoFunds', records: [] },
          plain: { renewals: 0, end_reason: 'expired', records: [] },
          failing: { renewals: 0, end_reason: 'autoRefunded', records: [['refund', 1000]] },
        };
        for (const item of (
          work as { expect: { userId: string; leaseId: string; kind: (typeof kinds)[number] }[] }
        ).expect) {
          const [row] = await t.db.query<{ renewals: number; end_reason: string | null }>(
            'SELECT renewals, end_reason FROM leases WHERE id = $1',
            [item.leaseId],
          );
          const moved = await t.db.query<{ type: string; amt_c: string }>(
            "SELECT type, amt_c FROM txrecords WHERE user_id = $1 AND type IN ('renewal', 'refund')",
            [item.userId],
          );
          assert.deepEqual(
            {
              renewals: row!.renewals,
              end_reason: row!.end_reason,
              records: moved.map((r) => [r.type, Number(r.amt_c)]),
            },
            expected[item.kind],
            `${item.kind} lease ${item.leaseId}`,
          );
        }
      },
    );
  });

  test(`crediting: ${TRIALS} kills of the payments watcher, each output credited once`, {
    timeout: 600_000,
  }, async () => {
    const paymentsFile = join(dir, 'payments.json');
    writeFileSync(paymentsFile, JSON.stringify(testPaymentsSettings(p.chain, p.ticker, { bonusPct: 0 })));
    await trials(
      'credit',
      p.db.url,
      async () => {
        const expect = [];
        for (let i = 0; i < 4; i++) {
          const { userId } = await p.customer();
          const charge = await p.services.payments.createCharge(
            { userId },
            { amount: cents(1000), type: 'ltc' },
          );
          // Paid in full and confirmed (LTC needs 2 here): the watcher credits it on its next pass.
          p.chain.pay('ltc', charge.address, charge.amount, 2);
          expect.push({ userId, uid: charge.uid });
        }
        return { kind: 'credit', expect };
      },
      async (_trial, work) => {
        await assertBooks(p.db as unknown as TestApp['db']);
        const twice = await p.db.query(
          'SELECT txid, out_key FROM crypto_payments GROUP BY txid, out_key HAVING count(*) > 1',
        );
        assert.deepEqual(twice, [], 'an output recorded twice');
        for (const item of (work as { expect: { userId: string; uid: string }[] }).expect) {
          const credited = await p.db.query<{ amt_c: string }>(
            "SELECT amt_c FROM txrecords WHERE user_id = $1 AND type = 'deposit'",
            [item.userId],
          );
          assert.deepEqual(
            credited.map((r) => Number(r.amt_c)),
            [1000],
            `charge ${item.uid}: credited once`,
          );
          const [payment] = await p.db.query<{ state: string }>(
            'SELECT state FROM crypto_payments WHERE charge_id = $1',
            [item.uid],
          );
          assert.equal(payment?.state, 'credited', `charge ${item.uid}: its output credited`);
        }
      },
      paymentsFile,
    );
  });

  after(() => {
    console.log(`crash trials: ${JSON.stringify(crash.figures)}`);
  });
});
