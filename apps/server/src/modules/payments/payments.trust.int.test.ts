/**
 * Issue 23's hostile customer against crypto top-ups: the rate option (late, over, cap, held
 * credit, the watch window's end), the open-charge limit and polling schedule, address reuse, and
 * which load is "first" for the referral reward.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS } from '@pm/contracts';
import { newUserId } from '@pm/db/testing';
import { cents } from '@pm/money';
import { METRICS_AUTH } from '../../test/app.ts';
import { createPaymentsHarness, type PaymentsHarness } from '../../test/payments.ts';
import { callRoute } from '../../test/route.ts';

let h: PaymentsHarness;
before(async () => {
  // One poll at a time, in due order: the referral test below depends on which charge is read first.
  h = await createPaymentsHarness('payments_trust', { watchConcurrency: 1 });
});
after(async () => {
  await h?.close();
});

const HOUR = 3600_000;
const create = (userId: string, amountC: number, type: 'btc' | 'ltc' | 'trc20usdt' = 'ltc') =>
  h.services.payments.createCharge({ userId }, { amount: cents(amountC), type });
const page = (userId: string, uid: string) =>
  h.services.payments.checkCharge({ userId, isStaff: false }, uid).then((r) => r.data);
const watch = async () => {
  await h.makeDue();
  return h.services.paymentWatcher.watchOnce();
};
/** Sets the LTC price at both sources (past the 10 s quote reuse). */
const ltcAt = (dollars: string) => {
  h.ticker.setPrice('ltc', dollars);
  h.clock.advance(11_000);
};
const staff = newUserId('staff');

describe('the rate is no free option', () => {
  test('hostile: a payment seen before expiry that confirms hours after it is late (lower rate)', async () => {
    const { userId } = await h.customer();
    const c = await create(userId, 2000);
    h.chain.pay('ltc', c.address, c.amount, 0); // a low fee: it sits in the mempool
    await watch();
    assert.equal((await page(userId, c.uid)).status, 'pending');
    h.clock.advance(8 * HOUR); // expiry was at 6 h; the allowance is 1 h
    ltcAt('42.00'); // the coin lost half its value meanwhile
    try {
      h.chain.ledger.mine('ltc', 2);
      await watch();
      const p = await page(userId, c.uid);
      assert.equal(p.late, true);
      assert.equal(p.creditedUsd, 1000, 'credited at the current, lower rate, not the locked one');
    } finally {
      ltcAt('84.00');
    }
  });

  test('hostile: a little before expiry, the rest after the rate moved: the rest at the lower rate', async () => {
    const { userId } = await h.customer();
    const c = await create(userId, 2000);
    h.chain.pay('ltc', c.address, '0.05', 2);
    await watch();
    assert.equal((await page(userId, c.uid)).creditedUsd, 420);
    h.clock.advance(7 * HOUR);
    ltcAt('42.00');
    try {
      h.chain.pay('ltc', c.address, '0.18809524', 2);
      await watch();
      const p = await page(userId, c.uid);
      assert.equal(p.status, 'paid');
      assert.equal(p.creditedUsd, 420 + 790);
    } finally {
      ltcAt('84.00');
    }
  });

  test('hostile: overpaying after the coin fell: the part above the amount due at the current rate', async () => {
    const { userId } = await h.customer();
    const c = await create(userId, 2000);
    ltcAt('42.00');
    try {
      h.chain.pay('ltc', c.address, '0.71428572', 2); // 3x what is due, on time
      await watch();
      assert.equal((await page(userId, c.uid)).creditedUsd, 2000 + 2000);
    } finally {
      ltcAt('84.00');
    }
  });

  test('hostile: the watch window has a hard end: an unconfirmed payment no longer stretches it', async () => {
    const { userId } = await h.customer();
    const c = await create(userId, 2000);
    h.chain.pay('ltc', c.address, c.amount, 0);
    await watch();
    h.clock.advance(20 * HOUR); // polled while still unconfirmed (this used to push the end out)
    await watch();
    h.clock.advance(11 * HOUR); // past expiry (6 h) plus the grace window (24 h)
    await watch();
    assert.equal((await page(userId, c.uid)).status, 'expired');
    h.chain.ledger.mine('ltc', 2);
    await watch();
    assert.equal((await page(userId, c.uid)).creditedUsd, 0, 'staff deep-check is the way now');
  });
});

describe('the charge cap and held credits', () => {
  test('hostile: 100x in one output: nothing reaches the balance; staff release it once, with an audit row', async () => {
    const { userId } = await h.customer();
    const c = await create(userId, 1000);
    h.chain.pay('ltc', c.address, '11.9047619', 2); // 100x the 0.11904762 LTC due
    await watch();
    assert.equal(await h.balance(userId), 0);
    const list = await callRoute(h.app, ENDPOINTS.listHeldCredits, {
      query: { user_id: userId },
      headers: await h.staffAuth(staff),
    });
    assert.equal(list.statusCode, 200, list.body);
    const [held] = list.json().items;
    assert.equal(held.reason, 'outputOverCap');
    assert.equal(held.amountUsd, 99_999);
    assert.equal(held.state, 'held');
    const asCustomer = await callRoute(h.app, ENDPOINTS.listHeldCredits, { headers: await h.auth(userId) });
    assert.equal(asCustomer.statusCode, 403);
    const staffHeaders = await h.staffAuth(staff);
    const release = () =>
      callRoute(h.app, ENDPOINTS.releaseHeldCredit, {
        params: { id: held.id },
        headers: staffHeaders,
        body: { note: 'customer confirmed the amount by ticket #12' },
      });
    const first = await release();
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json().state, 'released');
    assert.equal(await h.balance(userId), 99_999);
    const again = await release();
    assert.equal(again.statusCode, 409, 'a held credit is decided once');
    assert.equal(await h.balance(userId), 99_999);
    const audit = await h.db.query<{ action: string; actor_id: string; reason: string }>(
      'SELECT action, actor_id, reason FROM audit_log WHERE target_id = $1',
      [c.uid],
    );
    assert.deepEqual(
      audit.map((a) => [a.action, a.actor_id]),
      [['payment.release', staff]],
    );
  });

  test('many outputs: credited up to 10x the amount, the rest held; staff return it (balance untouched)', async () => {
    const { userId } = await h.customer();
    const c = await create(userId, 1000); // cap $100
    for (let i = 0; i < 6; i++) h.chain.pay('ltc', c.address, '0.23809524', 0); // 2x each, 12x in all
    h.chain.ledger.mine('ltc', 2);
    await watch();
    assert.equal(await h.balance(userId), 10_000);
    const list = await callRoute(h.app, ENDPOINTS.listHeldCredits, {
      query: { user_id: userId, state: 'held' },
      headers: await h.staffAuth(staff),
    });
    const items = list.json().items as { id: number; amountUsd: number; reason: string }[];
    assert.equal(
      items.reduce((s, x) => s + x.amountUsd, 0),
      12 * 1000 - 10_000,
    );
    await assert.rejects(
      h.services.paymentsStaff.releaseHeld(userId, (items[0] as { id: number }).id, 'my own'),
      (e: { code: string }) => e.code === 'FORBIDDEN',
      'no staff member decides a held credit of their own account',
    );
    for (const x of items) {
      const r = await callRoute(h.app, ENDPOINTS.returnHeldCredit, {
        params: { id: x.id },
        headers: await h.staffAuth(staff),
        body: { note: 'sent back to the customer' },
      });
      assert.equal(r.statusCode, 200, r.body);
    }
    assert.equal(await h.balance(userId), 10_000);
    const audit = await h.db.query('SELECT 1 FROM audit_log WHERE action = $1 AND target_id = $2', [
      'payment.return',
      c.uid,
    ]);
    assert.equal(audit.length, items.length);
  });
});

describe('open charges and polling', () => {
  test('hostile: at most 3 open charges per customer (429); the same amount answers the open one', async () => {
    const { userId } = await h.customer();
    const headers = await h.auth(userId);
    const post = (amount: number, type: 'ltc' | 'trc20usdt' | 'btc' = 'ltc') =>
      callRoute(h.app, ENDPOINTS.createCharge, { headers, body: { amount, type } });
    for (const [amount, type] of [
      [500, 'ltc'],
      [600, 'ltc'],
      [1000, 'trc20usdt'],
    ] as const) {
      assert.equal((await post(amount, type)).statusCode, 200);
    }
    assert.equal((await post(500)).statusCode, 200, 'the same amount: the open charge again');
    const fourth = await post(700, 'btc');
    assert.equal(fourth.statusCode, 429, fourth.body);
    assert.equal(fourth.json().errorCode, 'tooManyOpenCharges');
  });

  test('a charge is not polled again before its next check; a USDT poll is one request', async () => {
    const { userId } = await h.customer();
    await create(userId, 1000, 'trc20usdt');
    await watch();
    const before = h.chain.requests('tron');
    const first = (await h.services.paymentWatcher.watchOnce()).find((r) => r.currency === 'trc20usdt');
    assert.equal(first?.polled, 0, 'checked a moment ago: not due');
    h.clock.advance(31_000);
    const later = (await h.services.paymentWatcher.watchOnce()).find((r) => r.currency === 'trc20usdt');
    assert.ok((later?.polled ?? 0) >= 1);
    assert.equal(h.chain.requests('tron') - before, later?.polled, 'one request per poll');
  });
});

describe('address reuse', () => {
  test('an expired never-paid address serves the same customer again once its watch window ended', async () => {
    const { userId } = await h.customer();
    const other = await h.customer();
    const a = await create(userId, 2000);
    h.clock.advance(7 * HOUR); // expired, still watched for late payments
    await watch();
    const b = await create(userId, 2000);
    assert.notEqual(b.address, a.address, 'still in its grace window: not reused yet');
    h.clock.advance(31 * HOUR);
    await watch();
    const fresh = await create(other.userId, 2000);
    assert.notEqual(fresh.address, a.address, "never another customer's address");
    const c = await create(userId, 2500);
    assert.equal(c.address, a.address, 'the lowest unused index first');
    assert.notEqual(c.newChargeCode, a.newChargeCode, 'a new charge page');
    h.chain.pay('ltc', c.address, c.amount, 2);
    await watch();
    assert.equal((await page(userId, c.uid)).creditedUsd, 2500);
    // raw path: /metrics is the Prometheus scrape, outside the contract
    const metrics = await h.app.inject({ method: 'GET', url: '/metrics', headers: METRICS_AUTH });
    assert.match(metrics.body, /payments_address_gap_max\{currency="ltc"\} \d+/);
  });
});

describe('referral: the first load is the one first on chain', () => {
  test('two loads credited in one pass: the 10% reward goes to the earlier on chain, not to the one read first', async () => {
    const referrer = await h.customer();
    const { userId } = await h.customer({ referredBy: referrer.refcode });
    const readFirst = await create(userId, 3000); // due first, so polled (and once booked) first
    const paidFirst = await create(userId, 1000);
    h.chain.pay('ltc', paidFirst.address, paidFirst.amount, 2);
    h.clock.advance(10 * 60_000);
    h.chain.pay('ltc', readFirst.address, readFirst.amount, 2);
    await watch();
    const rewards = await h.db.query<{ amt_c: string; idem_key: string }>(
      "SELECT amt_c, idem_key FROM txrecords WHERE user_id = $1 AND type = 'referral' ORDER BY id",
      [referrer.userId],
    );
    const first = rewards.find((r) => r.idem_key.startsWith('referral:first:'));
    assert.equal(Number(first?.amt_c), 100, '10% of the $10 load, paid first');
    assert.equal(
      rewards.reduce((s, r) => s + Number(r.amt_c), 0),
      100 + 150,
    );
  });
});
