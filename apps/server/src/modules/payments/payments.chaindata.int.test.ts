/**
 * Issue 23 hole 7 on the whole watcher: chain and rate data are not trusted blindly. Forged and
 * malformed explorer entries, confirmations by amount, re-checks of credited outputs until final
 * (a vanished one is flagged for staff), and disagreeing rate sources.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS } from '@pm/contracts';
import { newUserId } from '@pm/db/testing';
import { cents } from '@pm/money';
import { createPaymentsHarness, type PaymentsHarness } from '../../test/payments.ts';
import { callRoute } from '../../test/route.ts';
import { DEFAULT_PAYMENTS_SETTINGS } from './payments.config.ts';

let h: PaymentsHarness;
before(async () => {
  // The production confirmation tiers (BTC: 1 up to $500, 3 up to $5,000, 6 above).
  h = await createPaymentsHarness('payments_chaindata', {
    confirmations: DEFAULT_PAYMENTS_SETTINGS.confirmations,
  });
});
after(async () => {
  await h?.close();
});

const create = (userId: string, amountC: number, type: 'btc' | 'ltc' = 'btc') =>
  h.services.payments.createCharge({ userId }, { amount: cents(amountC), type });
const page = (userId: string, uid: string) =>
  h.services.payments.checkCharge({ userId, isStaff: false }, uid).then((r) => r.data);
const watch = async () => {
  await h.makeDue();
  return h.services.paymentWatcher.watchOnce();
};

describe('explorer answers are checked', () => {
  test('hostile: a forged entry naming a real transaction credits nothing; a malformed one does not stop the real payment', async () => {
    const { userId } = await h.customer();
    const c = await create(userId, 5000);
    const elsewhere = await create((await h.customer()).userId, 500);
    const realTxid = h.chain.pay('btc', elsewhere.address, elsewhere.amount, 1);
    // A lying or broken explorer: someone else's deep transaction shown as paying 1 BTC here, plus junk.
    h.chain.ledger.addRawEntry('btc', c.address, {
      txid: realTxid,
      vout: [{ scriptpubkey_address: c.address, value: 100_000_000 }],
      status: { confirmed: true, block_height: 840_001, block_time: 1 },
    });
    h.chain.ledger.addRawEntry('btc', c.address, { txid: 42, vout: 'x' });
    h.chain.ledger.addRawEntry('btc', c.address, {
      txid: 'e'.repeat(64),
      vout: [{ scriptpubkey_address: c.address, value: 12.5 }],
      status: { confirmed: true, block_height: 840_001 },
    });
    h.chain.pay('btc', c.address, c.amount, 1);
    await watch();
    const p = await page(userId, c.uid);
    assert.equal(p.creditedUsd, 5000, 'only the real payment');
    assert.equal(await h.balance(userId), 5000);
  });
});

describe('confirmations and re-checks', () => {
  test('confirmations scale with the amount: $1,000 of BTC waits for 3 blocks', async () => {
    const { userId } = await h.customer();
    const c = await create(userId, 100_000);
    assert.equal((await page(userId, c.uid)).confirmationsRequired, 3);
    h.chain.pay('btc', c.address, c.amount, 1);
    await watch();
    assert.equal((await page(userId, c.uid)).status, 'pending');
    h.chain.ledger.mine('btc', 2);
    await watch();
    assert.equal((await page(userId, c.uid)).creditedUsd, 100_000);
  });

  test('hostile: a credited output that vanishes is flagged for staff; the balance never goes negative', async () => {
    const { userId } = await h.customer();
    const c = await create(userId, 10_000);
    const txid = h.chain.pay('btc', c.address, c.amount, 1);
    await watch();
    assert.equal(await h.balance(userId), 10_000);
    // Spent the money at once (a purchase), then a reorg takes the deposit out of the chain.
    await h.db.query('UPDATE accounts SET balance_c = 0 WHERE user_id = $1', [userId]);
    assert.ok(h.chain.ledger.reorgOut('btc', txid));
    h.clock.advance(11 * 60_000);
    await watch();
    const rows = await h.db.query<{ vanished_at: Date | null; final_at: Date | null }>(
      'SELECT vanished_at, final_at FROM crypto_payments WHERE txid = $1',
      [txid],
    );
    assert.ok(rows[0]?.vanished_at, 'flagged');
    assert.equal(rows[0]?.final_at, null);
    assert.equal(await h.balance(userId), 0, 'no automatic negative balance');
    const list = await callRoute(h.app, ENDPOINTS.listVanishedPayments, {
      headers: await h.staffAuth(newUserId('staff')),
    });
    assert.equal(list.statusCode, 200, list.body);
    assert.ok(
      list.json().items.some((x: { txid: string; userId: string }) => x.txid === txid && x.userId === userId),
    );
    const customer = await callRoute(h.app, ENDPOINTS.listVanishedPayments, {
      headers: await h.auth(userId),
    });
    assert.equal(customer.statusCode, 403);
  });

  test('a credited output is re-read until 6 deep, then final', async () => {
    const { userId } = await h.customer();
    const c = await create(userId, 10_000);
    const txid = h.chain.pay('btc', c.address, c.amount, 1);
    await watch();
    const state = async () =>
      (
        await h.db.query<{ final_at: Date | null }>('SELECT final_at FROM crypto_payments WHERE txid = $1', [
          txid,
        ])
      )[0];
    assert.equal((await state())?.final_at, null);
    h.chain.ledger.mine('btc', 5);
    h.clock.advance(11 * 60_000);
    await watch();
    assert.ok((await state())?.final_at);
  });
});

describe('rates', () => {
  test('hostile: the two rate sources disagree past the band: no charge is priced (503)', async () => {
    const { userId } = await h.customer();
    h.ticker.setPrice('btc', '90000.00', 'coinbase'); // Kraken still says 97,250.10
    h.clock.advance(11_000);
    try {
      const res = await callRoute(h.app, ENDPOINTS.createCharge, {
        headers: await h.auth(userId),
        body: { amount: 2000, type: 'btc' },
      });
      assert.equal(res.statusCode, 503, res.body);
      assert.equal(res.json().errorCode, 'rateUnavailable');
    } finally {
      h.ticker.setPrice('btc', '97250.10');
      h.clock.advance(11_000);
    }
  });
});
