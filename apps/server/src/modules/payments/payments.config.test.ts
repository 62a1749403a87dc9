import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  confirmationsFor,
  DEFAULT_PAYMENTS_SETTINGS,
  parseConfirmationTiers,
  readPaymentsEnv,
} from './payments.config.ts';

const BTC_XPUB =
  'xpub6CatWdiZiodmUeTDp8LT5or8nmbKNcuyvz7WyksVFkKB4RHwCD3XyuvPEbvqAQY3rAPshWcMLoP2fMFMKHPJ4ZeZXYVUhLv1VMrjPC7PW6V';

describe('payments settings', () => {
  test('confirmations scale with the amount: BTC 1 up to $500, 3 up to $5,000, 6 above', () => {
    const btc = DEFAULT_PAYMENTS_SETTINGS.confirmations.btc;
    assert.equal(confirmationsFor(btc, 50_000), 1);
    assert.equal(confirmationsFor(btc, 50_001), 3);
    assert.equal(confirmationsFor(btc, 500_000), 3);
    assert.equal(confirmationsFor(btc, 500_001), 6);
    assert.equal(confirmationsFor(DEFAULT_PAYMENTS_SETTINGS.confirmations.ltc, 100_000), 6);
  });

  test('CONFIRMATIONS_* reads "blocks@dollars,…,blocks" or one number; nonsense is refused', () => {
    assert.deepEqual(parseConfirmationTiers('1@500,3@5000,6'), [
      { upToC: 50_000, blocks: 1 },
      { upToC: 500_000, blocks: 3 },
      { upToC: null, blocks: 6 },
    ]);
    assert.equal(parseConfirmationTiers('2'), 2);
    for (const bad of ['0', '1@500', '3@5000,1@500,6', '1@500,,6', 'six']) {
      assert.equal(parseConfirmationTiers(bad), null, bad);
    }
  });

  test('a key of the wrong kind is refused at start, naming the variable and what it needs', () => {
    const problems: string[] = [];
    const s = readPaymentsEnv({ PAYMENTS_XPUB_BTC: BTC_XPUB, PAYMENTS_BUDGET_TRON: 'lots' }, problems);
    assert.equal(s.xpubs.btc, undefined);
    assert.ok(
      problems.some((p) =>
        /^PAYMENTS_XPUB_BTC: .*needs a BIP84 zpub .* for bc1 addresses, got a xpub/.test(p),
      ),
      problems.join('\n'),
    );
    assert.ok(problems.some((p) => p.startsWith('PAYMENTS_BUDGET_TRON')));
  });

  test('defaults stay under the public services free limits', () => {
    const { budgets } = DEFAULT_PAYMENTS_SETTINGS;
    assert.ok(budgets.tron.perDay <= 100_000 && budgets.tron.perSecond <= 15); // TronGrid per key
    assert.ok(budgets.btc.perDay <= 20_000 && budgets.btc.perSecond <= 5); // public Esplora: no published quota
  });
});
