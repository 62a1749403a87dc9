import assert from 'node:assert/strict';
import { it } from 'node:test';
import { bonusCents, currencyLabel, formatBonus, formatCrypto, formatRate } from './format.ts';

it('shows crypto exactly and names the currency', () => {
  assert.equal(formatCrypto('0.00051234', 'btc'), '0.00051234 BTC');
  assert.equal(formatCrypto('25', 'trc20usdt'), '25 USDT');
  assert.equal(currencyLabel('trc20usdt'), 'USDT TRC20');
  assert.equal(currencyLabel('ltc'), 'LTC');
});

it('shows the rate in dollars per coin with thousands grouped', () => {
  assert.equal(formatRate(6_543_210, 'btc'), '$65,432.10 per BTC');
  assert.equal(formatRate(100, 'trc20usdt'), '$1.00 per USDT');
});

it('rounds the bonus to the cent (rules §9)', () => {
  assert.equal(bonusCents(2000, 5), 100);
  assert.equal(bonusCents(1010, 5), 51); // 50.5 rounds up
  assert.equal(bonusCents(1009, 5), 50); // 50.45
  assert.equal(formatBonus(2000, 0), 'None');
  assert.equal(formatBonus(2000, 5), '5% ($1.00)');
});
