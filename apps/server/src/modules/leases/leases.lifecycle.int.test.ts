import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isAppError } from '@pm/contracts';
import {
  buildAccount,
  buildAgent,
  buildLease,
  buildNode,
  buildTrafficHour,
  createTestDatabase,
  type TestDatabase,
} from '@pm/db/testing';
import { type Cents, cents } from '@pm/money';
import { createAuditService } from '../audit/audit.service.ts';
import { createLedgerService } from '../ledger/ledger.service.ts';
import { createSaleKeyService } from '../sales/sales.service.ts';
import { createHistoryService } from './leases.history.ts';
import { createRefundService } from './leases.refund.ts';
import { createRenewService } from './leases.renew.ts';
import { createLeaseService } from './leases.service.ts';
import { createSettleService } from './leases.settle.ts';

const H = 3600_000;
const M = 60_000;
const T0 = Date.UTC(2030, 0, 10, 12, 0, 0);

let db: TestDatabase;
let nowMs = T0;
let nodeId: string;
const now = () => nowMs;
let renew: ReturnType<typeof createRenewService>;
let refund: ReturnType<typeof createRefundService>;
let settle: ReturnType<typeof createSettleService>;
let history: ReturnType<typeof createHistoryService>;
let leaseService: ReturnType<typeof createLeaseService>;

before(async () => {
  db = await createTestDatabase('lease_lifecycle');
  nodeId = (await buildNode(db)).id;
  leaseService = createLeaseService({ db: db.db, now });
  const deps = { db: db.db, ledger: createLedgerService({ db: db.db }), leases: leaseService, now };
  renew = createRenewService({ ...deps, saleKeys: createSaleKeyService({ db: db.db }) });
  refund = createRefundService({ ...deps, audit: createAuditService({ db: db.db }) });
  settle = createSettleService(deps);
  history = createHistoryService({ db: db.db });
});
after(async () => {
  await db.drop();
});

/** The error's HTTP status and errorCode, or 'ok'. */
async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    if (!isAppError(e)) throw e;
    return `${e.status} ${e.details?.errorCode ?? e.code}`;
  }
}

const balanceOf = async (userId: string) =>
  Number(
    (await db.query<{ b: string }>('SELECT balance_c AS b FROM accounts WHERE user_id = $1', [userId]))[0]!.b,
  );
const ledgerSum = async (userId: string) =>
  Number(
    (
      await db.query<{ s: string }>('SELECT coalesce(sum(amt_c), 0) AS s FROM txrecords WHERE user_id = $1', [
        userId,
      ])
    )[0]!.s,
  );
const leaseRow = async (id: string) =>
  (await db.query<Record<string, unknown>>('SELECT * FROM leases WHERE id = $1', [id]))[0]!;

/** A customer with `balanceC` and a lease bought at T0 for `priceC`, lasting `hours`. */
async function setup(
  o: { balanceC?: number; priceC?: number; hours?: number; online?: boolean; speedBps?: number } = {},
) {
  const account = await buildAccount(db, { balanceC: o.balanceC ?? 10_000 });
  const agent = await buildAgent(db, { nodeId, online: o.online ?? false, speedBps: o.speedBps ?? null });
  const lease = await buildLease(db, agent.id, {
    userId: account.userId,
    start: new Date(T0),
    untilMs: T0 + (o.hours ?? 24) * H,
    purchasePriceC: cents(o.priceC ?? 1000),
    exc: true,
  });
  return { userId: account.userId, agent, lease };
}

describe('renew', () => {
  test('refused at 5 h 1 min before the end, allowed at 4 h 59 min at floor(price / hours x 24)', async () => {
    const { userId, lease } = await setup({ hours: 7, priceC: 1000 });
    nowMs = T0 + 7 * H - (5 * H + M);
    assert.equal(await outcome(renew.renewLease(userId, lease.id)), '409 notRenewable');
    nowMs = T0 + 7 * H - (4 * H + 59 * M);
    const result = await renew.renewLease(userId, lease.id);
    assert.equal(result.status, 'RENEW_STATUS_RENEWED');
    assert.equal(result.priceC, 3428); // floor(1000 / 7 x 24)
    assert.equal(result.balanceC, 10_000 - 3428);
    assert.equal(result.lease.until, new Date(T0 + 31 * H).toISOString());
    assert.equal(await balanceOf(userId), await ledgerSum(userId));
    const [rec] = await db.query<{ type: string; amt_c: string }>(
      "SELECT type, amt_c FROM txrecords WHERE user_id = $1 AND type = 'renewal'",
      [userId],
    );
    assert.equal(Number(rec!.amt_c), -3428);
    // Renewed: 24 h and more left, so not renewable again now.
    assert.equal(await outcome(renew.renewLease(userId, lease.id)), '409 notRenewable');
    // The next renewal of the same lease is at the same daily rate.
    nowMs = T0 + 31 * H - H;
    assert.equal((await renew.renewLease(userId, lease.id)).priceC, 3428);
  });

  test('402 when the balance does not cover it, and nothing changes', async () => {
    const { userId, lease } = await setup({ balanceC: 999, priceC: 1000 });
    nowMs = T0 + 20 * H;
    assert.equal(await outcome(renew.renewLease(userId, lease.id)), '402 notEnoughFunds');
    assert.equal(await balanceOf(userId), 999);
    assert.equal((await leaseRow(lease.id)).renewals, 0);
  });

  test("another customer's lease is 404, an ended one 409", async () => {
    const { userId, lease } = await setup();
    nowMs = T0 + 20 * H;
    assert.equal(await outcome(renew.renewLease('someone-else', lease.id)), '404 NOT_FOUND');
    await db.query('UPDATE leases SET ended_at = $2 WHERE id = $1', [lease.id, new Date(T0 + H)]);
    assert.equal(await outcome(renew.renewLease(userId, lease.id)), '409 notRenewable');
  });
});

describe('refund', () => {
  test('allowed at 3 h 59 min, refused at 4 h 1 min; the full price comes back through the ledger', async () => {
    const late = await setup();
    nowMs = T0 + 4 * H + M;
    assert.equal(await outcome(refund.refundLease(late.userId, late.lease.id)), '400 leaseNotEligible');
    const { userId, lease } = await setup({ priceC: 1234 });
    nowMs = T0 + 3 * H + 59 * M;
    assert.equal((await leaseService.getLease(lease.id)).stats.refundable, true);
    const result = await refund.refundLease(userId, lease.id);
    assert.deepEqual(result, {
      status: 'REFUND_STATUS_REFUNDED',
      leaseID: lease.id,
      refundAmountC: 1234,
      balanceC: 10_000 + 1234,
    });
    const row = await leaseRow(lease.id);
    assert.equal(row.end_reason, 'refunded');
    assert.equal((row.ended_at as Date).getTime(), nowMs);
    assert.equal(await balanceOf(userId), await ledgerSum(userId));
    // Once only.
    assert.equal(await outcome(refund.refundLease(userId, lease.id)), '400 leaseNotEligible');
  });

  test('an online agent is agentNotDead; an offline one refunds', async () => {
    nowMs = T0 + H;
    const online = await setup({ online: true });
    assert.equal((await leaseService.getLease(online.lease.id)).stats.refundable, false);
    assert.equal(await outcome(refund.refundLease(online.userId, online.lease.id)), '409 agentNotDead');
    const offline = await setup({ online: false });
    assert.equal(await outcome(refund.refundLease(offline.userId, offline.lease.id)), 'ok');
  });

  test('the speed limit: 500 kbps is notRefundable, 499.999 kbps refunds', async () => {
    nowMs = T0 + H;
    const fast = await setup({ speedBps: 500_000 });
    assert.equal(await outcome(refund.refundLease(fast.userId, fast.lease.id)), '409 notRefundable');
    assert.equal((await leaseService.getLease(fast.lease.id)).stats.refundable, false);
    const slow = await setup({ speedBps: 499_999 });
    assert.equal(await outcome(refund.refundLease(slow.userId, slow.lease.id)), 'ok');
  });

  test("another customer's lease is 404; a static lease is for staff, within 1 hour and unused", async () => {
    nowMs = T0 + 30 * M;
    const { userId, lease } = await setup();
    assert.equal(await outcome(refund.refundLease('intruder', lease.id)), '404 NOT_FOUND');
    const statics = await Promise.all([setup(), setup(), setup()]);
    for (const s of statics) await db.query('UPDATE leases SET static = true WHERE id = $1', [s.lease.id]);
    const [unused, used, late] = statics;
    assert.equal(await outcome(refund.refundLease(unused!.userId, unused!.lease.id)), '400 leaseNotEligible');
    await db.query('UPDATE leases SET reqs = 1, in_bytes = 10 WHERE id = $1', [used!.lease.id]);
    assert.equal(await outcome(refund.staffRefundLease(used!.lease.id, 'staff-1')), '409 notRefundable');
    assert.equal((await refund.staffRefundLease(unused!.lease.id, 'staff-1')).refundAmountC, 1000);
    assert.equal((await leaseRow(unused!.lease.id)).end_reason, 'staffRefunded');
    nowMs = T0 + 61 * M;
    assert.equal(await outcome(refund.staffRefundLease(late!.lease.id, 'staff-1')), '400 leaseNotEligible');
    assert.equal(await outcome(refund.refundLease(userId, lease.id)), 'ok');
  });
});

describe('jobs', () => {
  test('expiry ends, auto-renew renews or ends for funds, each once; balances equal their ledgers', async () => {
    await db.query('UPDATE leases SET ended_at = until WHERE ended_at IS NULL');
    const renews = await setup({ balanceC: 5000, priceC: 1000 });
    const poor = await setup({ balanceC: 10, priceC: 1000 });
    const plain = await setup();
    await db.query('UPDATE leases SET auto_renew = true WHERE id = ANY($1)', [
      [renews.lease.id, poor.lease.id],
    ]);
    // Two minutes before the end: only the funded auto-renew lease is settled; the poor one waits for funds.
    nowMs = T0 + 24 * H - M;
    assert.deepEqual(await settle.settleDueLeases(), { renewed: [renews.lease.id], ended: [], refunded: [] });
    nowMs = T0 + 24 * H + M;
    const second = await settle.settleDueLeases();
    assert.deepEqual(second.renewed, []);
    assert.deepEqual(second.ended.sort(), [poor.lease.id, plain.lease.id].sort());
    assert.deepEqual(await settle.settleDueLeases(), { renewed: [], ended: [], refunded: [] });
    assert.equal((await leaseRow(poor.lease.id)).end_reason, 'autoRenewNoFunds');
    assert.equal((await leaseRow(plain.lease.id)).end_reason, 'expired');
    assert.equal(((await leaseRow(plain.lease.id)).ended_at as Date).getTime(), T0 + 24 * H);
    const renewed = await leaseRow(renews.lease.id);
    assert.equal((renewed.until as Date).getTime(), T0 + 48 * H);
    assert.equal(renewed.ended_at, null);
    for (const s of [renews, poor, plain]) assert.equal(await balanceOf(s.userId), await ledgerSum(s.userId));
    assert.equal(await balanceOf(renews.userId), 4000);
  });

  test('auto-refund: 40% of the last hour failed by the agent, with the minimum number of requests, once', async () => {
    // 12:30: the 12:00 row counts whole, the 11:00 row half, the 10:00 row not at all.
    nowMs = T0 + 30 * M;
    const [thisHour, lastHour, twoHoursAgo] = [T0, T0 - H, T0 - 2 * H].map((t) => new Date(t));
    const due = await setup({ priceC: 700 });
    const spread = await setup({ priceC: 800 });
    const few = await setup();
    const fine = await setup();
    const farmer = await setup();
    const old = await setup();
    const halfGone = await setup();
    const staticLease = await setup();
    await db.query('UPDATE leases SET static = true WHERE id = $1', [staticLease.lease.id]);
    const hours: [string, Date, number, number, number][] = [
      [due.lease.id, thisHour, 10, 4, 4],
      // 10 of 20 requests at 11:00 (half inside the hour) and 0 of 2 now: 5 of 12 weighed.
      [spread.lease.id, lastHour, 20, 10, 10],
      [spread.lease.id, thisHour, 2, 0, 0],
      [few.lease.id, thisHour, 9, 9, 9],
      [fine.lease.id, thisHour, 10, 3, 3],
      // Every request failed, none by the agent: targets that refuse, 0.0.0.0:1, the customer's limit.
      [farmer.lease.id, thisHour, 500, 500, 0],
      [old.lease.id, twoHoursAgo, 50, 50, 50],
      // 18 failed by the agent at 11:00 count 9 at 12:30: under the minimum of 10.
      [halfGone.lease.id, lastHour, 18, 18, 18],
      [staticLease.lease.id, thisHour, 20, 20, 20],
    ];
    for (const [id, hour, reqs, fails, agentFails] of hours) {
      await buildTrafficHour(db, id, { hour, reqs, fails, agentFails });
    }
    assert.deepEqual(
      (await settle.autoRefundFailing()).refunded.sort(),
      [due.lease.id, spread.lease.id].sort(),
    );
    assert.deepEqual((await settle.autoRefundFailing()).refunded, []);
    assert.equal(await balanceOf(due.userId), 10_700);
    assert.equal(await balanceOf(spread.userId), 10_800);
    assert.equal((await leaseRow(due.lease.id)).end_reason, 'autoRefunded');
    for (const s of [few, fine, farmer, old, halfGone, staticLease]) {
      assert.equal((await leaseRow(s.lease.id)).ended_at, null, `lease ${s.lease.id} still runs`);
      assert.equal(await balanceOf(s.userId), 10_000);
    }
    assert.equal(await balanceOf(due.userId), await ledgerSum(due.userId));
  });
});

describe('history', () => {
  test('newest first, overlapping the dates (end exclusive), searched by IP or note, paged with the total', async () => {
    const account = await buildAccount(db);
    const userId = account.userId;
    const made: string[] = [];
    for (let day = 0; day < 5; day++) {
      const agent = await buildAgent(db, { nodeId, ip: `203.0.113.${10 + day}` });
      const lease = await buildLease(db, agent.id, {
        userId,
        start: new Date(T0 + day * 24 * H),
        untilMs: T0 + day * 24 * H + 24 * H,
        endedAt: new Date(T0 + day * 24 * H + 24 * H),
        endReason: 'expired',
        purchasePriceC: cents(100 + day) as Cents,
        info: {},
      });
      made.push(lease.id);
      if (day === 2)
        await db.query('INSERT INTO agent_notes (user_id, agent_id, note) VALUES ($1, $2, $3)', [
          userId,
          agent.id,
          'Scraper 50%',
        ]);
    }
    const all = await history.listHistory({ userId }, { offset: 0, limit: 10 });
    assert.equal(all.total, 5);
    assert.deepEqual(
      all.items.map((i) => i.leaseID),
      [...made].reverse(),
    );
    assert.equal(all.items[0]!.ip, '203.0.113.14');
    assert.equal(all.items[0]!.lastPaymentC, 104);
    assert.equal(all.items[0]!.endReason, 'expired');
    const page2 = await history.listHistory({ userId }, { offset: 2, limit: 2 });
    assert.deepEqual(
      page2.items.map((i) => i.leaseID),
      [made[2], made[1]],
    );
    assert.equal(page2.total, 5);
    // Days 1 and 2 picked: start = day 1 + 1 h (after lease 0 ended), end = day 3 (exclusive).
    const range = await history.listHistory(
      { userId, start: new Date(T0 + 24 * H + H), end: new Date(T0 + 3 * 24 * H) },
      { offset: 0, limit: 10 },
    );
    assert.deepEqual(
      range.items.map((i) => i.leaseID),
      [made[2], made[1]],
    );
    assert.deepEqual(
      (await history.listHistory({ userId, query: '113.13' }, { offset: 0, limit: 10 })).items.map(
        (i) => i.leaseID,
      ),
      [made[3]],
    );
    const byNote = await history.listHistory({ userId, query: 'scraper 50%' }, { offset: 0, limit: 10 });
    assert.deepEqual(
      byNote.items.map((i) => [i.leaseID, i.note]),
      [[made[2], 'Scraper 50%']],
    );
    assert.equal((await history.listHistory({ userId, query: '_' }, { offset: 0, limit: 10 })).total, 0);
    assert.equal((await history.listHistory({ userId: 'nobody' }, { offset: 0, limit: 10 })).total, 0);
  });

  test("hourly traffic is the caller's only", async () => {
    const { userId, lease } = await setup();
    await db.query(
      'INSERT INTO lease_traffic_hourly (lease_id, hour, reqs, fails, in_bytes, out_bytes) VALUES ($1, $2, 5, 1, 100, 2000)',
      [lease.id, new Date(T0)],
    );
    assert.deepEqual(await history.getTraffic(userId, lease.id), {
      leaseID: lease.id,
      hours: [
        { hour: new Date(T0).toISOString(), reqs: 5, fails: 1, authFails: 0, inBytes: 100, outBytes: 2000 },
      ],
    });
    assert.equal(await outcome(history.getTraffic('intruder', lease.id)), '404 NOT_FOUND');
  });
});
