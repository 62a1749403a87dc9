import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkAmount,
  defaultAmountText,
  defaultDollars,
  isUnderFeeThreshold,
  minimumDollars,
  showsTransferFeeNote,
} from './amount.ts';

describe('add funds amount', () => {
  it('has a $5 minimum for BTC and LTC and $10 otherwise', () => {
    assert.equal(minimumDollars('btc'), 5);
    assert.equal(minimumDollars('ltc'), 5);
    assert.equal(minimumDollars('trc20usdt'), 10);
    assert.equal(minimumDollars('doge'), 10);
  });

  it('resets to $5 for BTC and LTC and to $10 for USDT TRC20', () => {
    assert.equal(defaultDollars('btc'), 5);
    assert.equal(defaultAmountText('ltc'), '5');
    assert.equal(defaultAmountText('trc20usdt'), '10');
  });

  it('disables the button below the minimum and flags the input below $2', () => {
    assert.deepEqual(checkAmount('5', 'btc'), {
      dollars: 5,
      amountC: 500,
      hasInputError: false,
      isAboveMaximum: false,
      canSubmit: true,
      minimumDollars: 5,
    });
    assert.equal(checkAmount('4.99', 'btc').canSubmit, false);
    assert.equal(checkAmount('4.99', 'btc').hasInputError, false);
    assert.equal(checkAmount('9', 'trc20usdt').canSubmit, false);
    assert.equal(checkAmount('10', 'trc20usdt').canSubmit, true);
    assert.equal(checkAmount('1.5', 'btc').hasInputError, true);
    assert.equal(checkAmount('2', 'btc').hasInputError, false);
  });

  it('sends integer cents', () => {
    assert.equal(checkAmount(' 12.3 ', 'btc').amountC, 1230);
    assert.equal(checkAmount('20.05', 'ltc').amountC, 2005);
  });

  it('rejects non-numeric input and amounts that are not whole cents', () => {
    for (const text of ['', 'abc', '5$', ' ', '1e3', '5.555', '-7']) {
      const c = checkAmount(text, 'btc');
      assert.equal(c.canSubmit, false, text);
      assert.equal(c.hasInputError, true, text);
    }
    assert.equal(checkAmount('abc', 'btc').dollars, null);
  });

  it('refuses more than the largest top-up ($100,000)', () => {
    assert.equal(checkAmount('100000', 'btc').canSubmit, true);
    const c = checkAmount('100000.01', 'btc');
    assert.equal(c.canSubmit, false);
    assert.equal(c.isAboveMaximum, true);
    assert.equal(c.hasInputError, true);
  });

  it('notes the USDT TRC20 transfer fee, as a warning under $10', () => {
    assert.equal(showsTransferFeeNote('trc20usdt'), true);
    assert.equal(showsTransferFeeNote('btc'), false);
    assert.equal(isUnderFeeThreshold('trc20usdt', 9.99), true);
    assert.equal(isUnderFeeThreshold('trc20usdt', 10), false);
    assert.equal(isUnderFeeThreshold('trc20usdt', null), false);
    assert.equal(isUnderFeeThreshold('ltc', 6), false);
  });
});
