/**
 * Issue 23 holes 4 and 6: the watcher stays within each chain API's request budget for the day;
 * the address gap metric.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cents } from '@pm/money';
import { METRICS_AUTH } from '../../test/app.ts';
import { createPaymentsHarness, type PaymentsHarness } from '../../test/payments.ts';

let h: PaymentsHarness;
before(async () => {
  h = await createPaymentsHarness('payments_budget', {
    budgets: {
      btc: { perSecond: 1000, perDay: 1_000_000 },
      ltc: { perSecond: 1000, perDay: 1_000_000 },
      tron: { perSecond: 1000, perDay: 6 },
    },
  });
});
after(async () => {
  await h?.close();
});

describe('per-chain request budget', () => {
  test("a pass stops at the day's budget; the count survives a restart's reload; the next UTC day polls again", async () => {
    for (let i = 0; i < 8; i++) {
      const { userId } = await h.customer();
      await h.services.payments.createCharge({ userId }, { amount: cents(1000), type: 'trc20usdt' });
    }
    const tron = async () => {
      await h.makeDue();
      return (await h.services.paymentWatcher.watchOnce()).find((r) => r.currency === 'trc20usdt');
    };
    const before = h.chain.requests('tron');
    const first = await tron();
    assert.equal(first?.overBudget, true);
    assert.ok((first?.polled ?? 0) < 8);
    const second = await tron();
    assert.equal(second?.polled, 0, 'spent for today');
    assert.ok(h.chain.requests('tron') - before <= 6, `${h.chain.requests('tron') - before} requests`);
    const row = await h.db.query<{ budget_used: number; budget_day: string }>(
      "SELECT budget_used, budget_day FROM payment_watch_state WHERE chain = 'trc20usdt'",
    );
    assert.ok((row[0]?.budget_used ?? 0) >= 4, 'stored for the other workers and restarts');
    const ms = h.clock.now();
    h.clock.advance(
      Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth(), new Date(ms).getUTCDate() + 1) -
        ms +
        1000,
    );
    const nextDay = await tron();
    assert.ok((nextDay?.polled ?? 0) > 0, 'a new day, a new budget');
  });
});

describe('address gap metric', () => {
  test('payments_address_gap_max is the longest run of indexes that never saw a payment', async () => {
    const gap = async () => {
      // raw path: /metrics is the Prometheus scrape, outside the contract
      const res = await h.app.inject({ method: 'GET', url: '/metrics', headers: METRICS_AUTH });
      return Number(/payments_address_gap_max\{currency="trc20usdt"\} (\d+)/.exec(res.body)?.[1]);
    };
    // The 8 USDT charges above: indexes 0-7, none paid.
    assert.equal(await gap(), 8);
    // A payment seen on index 3 (recorded as the watcher records one).
    await h.db.query(
      `INSERT INTO crypto_payments (charge_id, currency, txid, out_key, value_base, first_seen_at)
       SELECT id, currency, repeat('ab', 32), address, 1000000, now() FROM crypto_charges
       WHERE currency = 'trc20usdt' AND derivation_index = 3`,
    );
    assert.equal(await gap(), 4, 'indexes 4-7 after the paid 3 (0-2 is 3 long)');
  });
});
