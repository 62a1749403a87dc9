import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTicker, type Ticker } from '@pm/devnet/chain';
import { DEFAULT_PAYMENTS_SETTINGS } from './payments.config.ts';
import { createRateSource } from './payments.rates.ts';

let ticker: Ticker;
let nowMs = Date.parse('2026-11-26T12:00:00Z');
before(async () => {
  ticker = await startTicker({ host: '127.0.0.1', port: 0 });
});
after(() => ticker?.close());

const source = () =>
  createRateSource({
    settings: {
      ...DEFAULT_PAYMENTS_SETTINGS.rates,
      krakenUrl: ticker.url,
      fallbackUrl: ticker.url,
      maxSpreadBps: 100,
    },
    now: () => nowMs,
  });
const unavailable = (e: { code: string; details?: { errorCode?: string } }) =>
  e.code === 'UNAVAILABLE' && e.details?.errorCode === 'rateUnavailable';

describe('two rate sources', () => {
  test('both asked; the rate is their mean when they agree within the band', async () => {
    ticker.setPrice('btc', '100000.00');
    ticker.setPrice('btc', '100500.00', 'coinbase'); // 0.5 %
    const q = await source().quote('btc');
    assert.equal(q.rateC, 10_025_000);
    assert.equal(q.source, 'kraken+coinbase');
  });

  test('hostile: one exchange printing a far-off price refuses the quote, even with a fresh older one', async () => {
    const rates = source();
    ticker.setPrice('ltc', '84.00');
    await rates.quote('ltc');
    ticker.setPrice('ltc', '60.00', 'coinbase'); // a thin book's last trade, 29 % off
    nowMs += 20_000;
    await assert.rejects(rates.quote('ltc'), unavailable);
    ticker.setPrice('ltc', '84.00');
  });

  test('one source down: the other is used only within the band of the last agreed rate', async () => {
    const rates = source();
    ticker.setPrice('trc20usdt', '1.0000');
    await rates.quote('trc20usdt');
    ticker.setOutage('kraken', true);
    try {
      ticker.setPrice('trc20usdt', '1.0050');
      nowMs += 20_000;
      assert.equal((await rates.quote('trc20usdt')).rateC, 101);
      ticker.setPrice('trc20usdt', '1.2000');
      nowMs += 20_000;
      await assert.rejects(rates.quote('trc20usdt'), unavailable);
      // No agreed rate to anchor on: one source alone never prices.
      await assert.rejects(source().quote('trc20usdt'), unavailable);
    } finally {
      ticker.setOutage('kraken', false);
      ticker.setPrice('trc20usdt', '1.0002');
    }
  });
});
