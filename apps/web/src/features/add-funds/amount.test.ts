import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAmount, defaultDollars, minimumDollars } from './amount.ts';

describe('add funds amount', () => {
  it('has a $5 minimum for BTC and LTC and $10 otherwise', () => {
    assert.equal(minimumDollars('btc'), 5);
    assert.equal(minimumDollars('ltc'), 5);
    assert.equal(minimumDollars('trc20usdt'), 10);
    assert.equal(minimumDollars('doge'), 10);
    assert.equal(defaultDollars('trc20usdt'), 10);
  });

  it('disables the button below the minimum and flags the input below $2', () => {
    assert.deepEqual(checkAmount('5', 'btc'), {
      dollars: 5,
      hasInputError: false,
      canSubmit: true,
      minimumDollars: 5,
    });
    assert.equal(checkAmount('4.99', 'btc').canSubmit, false);
    assert.equal(checkAmount('4.99', 'btc').hasInputError, false);
    assert.equal(checkAmount('9', 'trc20usdt').canSubmit, false);
    assert.equal(checkAmount('10', 'trc20usdt').canSubmit, true);
    assert.equal(checkAmount('1.5', 'btc').hasInputError, true);
  });

  it('rejects non-numeric input', () => {
    for (const text of ['', 'abc', '5$', ' ']) {
      const c = checkAmount(text, 'btc');
      assert.equal(c.dollars, null);
      assert.equal(c.hasInputError, true);
      assert.equal(c.canSubmit, false);
    }
  });
});
