import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cents } from '@pm/money';
import { METRICS_AUTH } from '../../test/app.ts';
import { createPaymentsHarness, type PaymentsHarness } from '../../test/payments.ts';
import { creditCents } from './payments.amounts.ts';

let h: PaymentsHarness;
before(async () => {
  h = await createPaymentsHarness('payments_service', { bonusPct: 0 });
});
after(async () => {
  await h?.close();
});

const HOUR = 3600_000;
const STAFF = 'staff-deep-check';
const create = (userId: string, amountC: number, type: 'btc' | 'ltc' | 'trc20usdt' = 'ltc') =>
  h.services.payments.createCharge({ userId }, { amount: cents(amountC), type });
const page = (userId: string, uid: string) =>
  h.services.payments.checkCharge({ userId, isStaff: false }, uid).then((r) => r.data);
const records = (userId: string) =>
  h.db.query<{ type: string; amt_c: string; memo: string }>(
    'SELECT type, amt_c, memo FROM txrecords WHERE user_id = $1 AND type <> $2 ORDER BY id',
    [userId, 'adjustment'],
  );
/** One watcher pass with every charge due (the polling schedule has its own tests). */
const watch = async () => {
  await h.makeDue();
  return h.services.paymentWatcher.watchOnce();
};

describe('charges', () => {
  test('a charge gets a fresh address, the locked rate and the crypto amount; an open one is answered again as it is', async () => {
    const { userId } = await h.customer();
    const a = await create(userId, 2000);
    assert.match(a.address, /^ltc1q/);
    assert.equal(a.amountUSD, 2000);
    assert.equal(a.amount, '0.23809524'); // $20 at $84.00
    h.ticker.setPrice('ltc', '90.00');
    h.clock.advance(20_000); // past the reused quote
    try {
      const again = await create(userId, 2000);
      assert.equal(again.uid, a.uid, 'the open charge is answered again');
      assert.equal(again.address, a.address);
      assert.equal(again.amount, a.amount, 'with its quote: never re-priced silently');
      assert.equal(again.expiresAt, a.expiresAt);
    } finally {
      h.ticker.setPrice('ltc', '84.00');
      h.clock.advance(20_000);
    }
    const btc = await create(userId, 500, 'btc');
    assert.match(btc.address, /^bc1q/);
    const usdt = await create(userId, 1000, 'trc20usdt');
    assert.match(usdt.address, /^T/);
    assert.equal(usdt.amount, '10'); // $10 at $1.0002, which is 100 cents per USDT
  });

  test('once something is paid to it, the next create derives a new address', async () => {
    const { userId } = await h.customer();
    const a = await create(userId, 500);
    h.chain.pay('ltc', a.address, '0.01', 0);
    await watch();
    const b = await create(userId, 500);
    assert.notEqual(b.address, a.address);
  });

  test('no DEPOSIT permission is 403 "under review"; a stale rate refuses the charge', async () => {
    const { userId } = await h.customer({ deposit: false });
    await assert.rejects(create(userId, 500), (e: { code: string; userMessage: string }) => {
      assert.equal(e.code, 'FORBIDDEN');
      assert.match(e.userMessage, /under review/);
      return true;
    });
    const ok = await h.customer();
    h.ticker.setOutage('kraken', true);
    h.ticker.setOutage('coinbase', true);
    h.clock.advance(10 * 60_000); // past every cached quote
    try {
      await assert.rejects(create(ok.userId, 500, 'btc'), (e: { code: string }) => e.code === 'UNAVAILABLE');
      h.ticker.setOutage('kraken', false);
      const c = await create(ok.userId, 500, 'btc');
      assert.ok(c.uid);
    } finally {
      h.ticker.setOutage('kraken', false);
      h.ticker.setOutage('coinbase', false);
    }
  });

  test('Kraken down: the Coinbase price is used while it stays within the band of the last agreed rate', async () => {
    const { userId } = await h.customer();
    await create(userId, 500, 'ltc'); // an agreed two-source rate ($84.00) to anchor on
    h.ticker.setOutage('kraken', true);
    h.ticker.setPrice('ltc', '84.50');
    h.clock.advance(60_000);
    try {
      const c = await create(userId, 2000);
      assert.equal(c.amount, '0.2366864'); // $20 at $84.50, rounded up
      h.ticker.setPrice('ltc', '80.00'); // 5 % off the anchor: one exchange alone does not set that
      h.clock.advance(60_000);
      await assert.rejects(create(userId, 2100), (e: { code: string }) => e.code === 'UNAVAILABLE');
    } finally {
      h.ticker.setOutage('kraken', false);
      h.ticker.setPrice('ltc', '84.00');
      h.clock.advance(60_000); // past the cached quote
    }
  });
});

describe('crediting', () => {
  test('exact payment: pending until confirmed, then credited once as a deposit', async () => {
    const { userId } = await h.customer();
    const before = await h.balance(userId);
    const c = await create(userId, 2000);
    h.chain.pay('ltc', c.address, c.amount, 1); // 1 of the 2 confirmations
    await watch();
    assert.equal((await page(userId, c.uid)).status, 'pending');
    assert.equal(await h.balance(userId), before);
    h.chain.ledger.mine('ltc');
    await watch();
    await watch();
    const p = await page(userId, c.uid);
    assert.equal(p.status, 'paid');
    assert.equal(p.creditedUsd, 2000);
    assert.equal(await h.balance(userId), before + 2000);
    const rows = await records(userId);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.type, 'deposit');
  });

  test('short, then the rest: partial then paid; several payments to one address each credited', async () => {
    const { userId } = await h.customer();
    const c = await create(userId, 2000);
    h.chain.pay('ltc', c.address, '0.1', 2);
    await watch();
    let p = await page(userId, c.uid);
    assert.equal(p.status, 'partial');
    assert.equal(p.creditedUsd, creditCents(10_000_000n, cents(8400), 8)); // $8.40
    h.chain.pay('ltc', c.address, '0.13809524', 2);
    await watch();
    p = await page(userId, c.uid);
    assert.equal(p.status, 'paid');
    assert.equal(p.creditedUsd, 840 + 1160);
    assert.equal(p.payments.length, 2);
  });

  test('over: the amount due at the locked rate, the part above it at the lower of locked and current, flagged over', async () => {
    const { userId } = await h.customer();
    const c = await create(userId, 2000);
    h.ticker.setPrice('ltc', '120.00'); // later price changes do not matter to an on-time payment
    h.chain.pay('ltc', c.address, '0.5', 2);
    await watch();
    const p = await page(userId, c.uid);
    h.ticker.setPrice('ltc', '84.00');
    assert.equal(p.status, 'paid');
    assert.equal(p.over, true);
    // 0.23809524 LTC due at $84.00 is $20.00; the other 0.26190476 at min($84, $120) is $22.00.
    assert.equal(p.creditedUsd, creditCents(50_000_000n, cents(8400), 8));
  });

  test('expiry (6 h, USDT 40 min), then a late payment credited at the lower of locked and current rate', async () => {
    const { userId } = await h.customer();
    const ltc = await create(userId, 2000);
    const usdt = await create(userId, 1000, 'trc20usdt');
    h.clock.advance(41 * 60_000);
    await watch();
    assert.equal((await page(userId, usdt.uid)).status, 'expired');
    assert.equal((await page(userId, ltc.uid)).status, 'new');
    h.clock.advance(6 * HOUR);
    await watch();
    assert.equal((await page(userId, ltc.uid)).status, 'expired');
    h.ticker.setPrice('ltc', '42.00');
    h.chain.pay('ltc', ltc.address, ltc.amount, 2);
    await watch();
    h.ticker.setPrice('ltc', '84.00');
    h.clock.advance(60_000);
    const p = await page(userId, ltc.uid);
    assert.equal(p.late, true);
    assert.equal(p.creditedUsd, 1000, 'half the price now: credited at the current, lower rate');
    assert.equal(p.status, 'paid');
  });

  test('a payment that confirms after expiry but was in a block before it is on time', async () => {
    const { userId } = await h.customer();
    const c = await create(userId, 2000);
    h.chain.pay('ltc', c.address, c.amount, 1);
    h.clock.advance(7 * HOUR); // the watcher was down all this time
    h.chain.ledger.mine('ltc');
    await watch();
    const p = await page(userId, c.uid);
    assert.equal(p.late, false);
    assert.equal(p.creditedUsd, 2000);
  });

  test('an unconfirmed payment that vanishes leaves the charge waiting; no credit', async () => {
    const { userId } = await h.customer();
    const c = await create(userId, 2000);
    const txid = h.chain.pay('ltc', c.address, c.amount, 0);
    await watch();
    assert.equal((await page(userId, c.uid)).status, 'pending');
    h.chain.ledger.drop('ltc', txid);
    await watch();
    const p = await page(userId, c.uid);
    assert.equal(p.status, 'new');
    assert.equal(p.creditedUsd, 0);
  });

  test('USDT TRC-20: only the USDT contract to this address counts; under $10 pays the ~$3 fee', async () => {
    const { userId } = await h.customer();
    const c = await create(userId, 1000, 'trc20usdt');
    h.chain.ledger.pay({
      chain: 'tron',
      address: c.address,
      value: 50_000_000n,
      contract: 'TFakeUSDTcontract',
    });
    h.chain.pay('tron', c.address, '5', 1);
    await watch();
    const p = await page(userId, c.uid);
    assert.equal(p.status, 'partial');
    assert.equal(p.receivedCrypto, '5');
    assert.equal(p.creditedUsd, 500 - 300);
  });
});

describe('watcher outage and recovery', () => {
  test('an outage backs the chain off and ages the metric; after it, the payment is credited', async () => {
    const { userId } = await h.customer();
    const c = await create(userId, 500, 'btc');
    h.chain.setOutage('btc', true);
    h.chain.pay('btc', c.address, c.amount, 1);
    const [btc] = (await watch()).filter((r) => r.currency === 'btc');
    assert.ok(btc && btc.failed > 0 && btc.credited === 0);
    const skipped = (await watch()).find((r) => r.currency === 'btc');
    assert.equal(skipped?.skipped, true, 'backed off');
    h.clock.advance(5 * 60_000);
    // raw path: /metrics is the Prometheus scrape, outside the contract
    const metrics = await h.app.inject({ method: 'GET', url: '/metrics', headers: METRICS_AUTH });
    assert.match(metrics.body, /payments_watcher_failures\{chain="btc"\} 1/);
    h.chain.setOutage('btc', false);
    h.clock.advance(5 * 60_000);
    await watch();
    assert.equal((await page(userId, c.uid)).status, 'paid');
    // raw path: /metrics is the Prometheus scrape, outside the contract
    const after = await h.app.inject({ method: 'GET', url: '/metrics', headers: METRICS_AUTH });
    assert.match(after.body, /payments_watcher_last_success_age_seconds\{chain="btc"\} 0/);
    assert.match(after.body, /payments_watcher_failures\{chain="btc"\} 0/);
  });
});

describe('staff deep-check', () => {
  test('credits a payment the watcher stopped looking for, once however often it runs', async () => {
    const { userId } = await h.customer();
    const c = await create(userId, 2000);
    h.clock.advance(40 * HOUR); // past expiry and the grace window: no longer watched
    await watch();
    h.chain.pay('ltc', c.address, c.amount, 2);
    await watch();
    assert.equal((await page(userId, c.uid)).creditedUsd, 0);
    const first = await h.services.payments.deepCheck(STAFF, { address: c.address });
    assert.equal(first.credited.length, 1);
    assert.equal(first.charges[0]?.status, 'paid');
    const second = await h.services.payments.deepCheck(STAFF, { uid: c.uid });
    assert.equal(second.credited.length, 0);
    const byTx = await h.services.payments.deepCheck(STAFF, { txid: first.credited[0]?.txid, type: 'ltc' });
    assert.equal(byTx.credited.length, 0);
    assert.equal(byTx.transactions.length, 1);
    assert.equal((await records(userId)).filter((r) => r.type === 'deposit').length, 1);
  });

  test('writes payment.deepCheck audit rows: one per credit, in its transaction; one per customer looked up for nothing', async () => {
    const audit = (userId: string) =>
      h.db.query<{ actor_id: string; before: Record<string, unknown>; after: Record<string, unknown> }>(
        'SELECT actor_id, before, after FROM audit_log WHERE action = $1 AND target_id = $2 ORDER BY id',
        ['payment.deepCheck', userId],
      );
    const { userId } = await h.customer();
    const c = await create(userId, 2000);
    h.clock.advance(40 * HOUR);
    await watch();
    h.chain.pay('ltc', c.address, c.amount, 2);
    await watch();
    const first = await h.services.payments.deepCheck(STAFF, { uid: c.uid });
    assert.equal(first.credited.length, 1);
    const rows = await audit(userId);
    assert.equal(rows.length, 1, 'one row for the one credit');
    assert.equal(rows[0]?.actor_id, STAFF);
    assert.equal(rows[0]?.before.chargeId, c.uid);
    assert.equal(rows[0]?.before.txid, first.credited[0]?.txid);
    assert.equal(rows[0]?.after.creditedC, 2000);
    assert.equal(rows[0]?.after.balanceC, 2000);
    // Again: nothing to credit, so one row for the look-up, and the money did not move twice.
    const second = await h.services.payments.deepCheck(STAFF, { user_id: userId });
    assert.equal(second.credited.length, 0);
    const after = await audit(userId);
    assert.equal(after.length, 2);
    assert.deepEqual(after[1]?.before.charges, [c.uid]);
    assert.deepEqual(after[1]?.after, { credited: [], creditedC: 0 });
    assert.equal((await records(userId)).filter((r) => r.type === 'deposit').length, 1);
  });
});
