import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Cents, cents } from '@pm/money';
import fc from 'fast-check';
import {
  creditCents,
  dollarsToCents,
  dueBaseUnits,
  formatCoins,
  parseCoins,
  percentOf,
} from './payments.amounts.ts';

describe('exact amounts', () => {
  test('quotes to cents, half up, refusing junk', () => {
    assert.equal(dollarsToCents('97123.4'), 9712340);
    assert.equal(dollarsToCents('97123.455'), 9712346);
    assert.equal(dollarsToCents('97123.454999'), 9712345);
    assert.equal(dollarsToCents('1.0003'), 100);
    assert.equal(dollarsToCents('0.99950'), 100);
    assert.equal(dollarsToCents('84'), 8400);
    for (const bad of ['', '-1', '1e5', '0', '0.001', 'NaN', '1,5', '9999999999.99'])
      assert.equal(dollarsToCents(bad), null, bad);
  });

  test('coins to base units and back', () => {
    assert.equal(parseCoins('0.25', 8), 25_000_000n);
    assert.equal(parseCoins('10.33', 6), 10_330_000n);
    assert.equal(parseCoins('0.000000001', 8), null);
    assert.equal(formatCoins(51234n, 8), '0.00051234');
    assert.equal(formatCoins(25_000_000n, 8), '0.25');
    assert.equal(formatCoins(2_500_000_000n, 8), '25');
    assert.equal(formatCoins(0n, 6), '0');
  });

  test('$20 of LTC at $84.00: 0.23809524 LTC asked, exactly $20.00 credited', () => {
    const due = dueBaseUnits(cents(2000), cents(8400), 8);
    assert.equal(formatCoins(due, 8), '0.23809524');
    assert.equal(creditCents(due, cents(8400), 8), 2000);
    assert.equal(creditCents(due - 1n, cents(8400), 8), 1999);
  });

  test('paying what is due always credits at least the amount, never a cent more than arrived', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 1, max: 20_000_000 }),
        fc.constantFrom(6, 8),
        (a, r, d) => {
          const [amountC, rateC] = [cents(a), cents(r)];
          const due = dueBaseUnits(amountC, rateC, d);
          const credited = creditCents(due, rateC, d);
          assert.ok(credited >= amountC);
          // One base unit less would not have been enough: the ask is the least that covers it.
          assert.ok(creditCents(due - 1n, rateC, d) < amountC || due === 1n);
          // Credit is floor(value): the exact value in cents is at least what was credited.
          assert.ok(BigInt(credited) * 10n ** BigInt(d) <= due * BigInt(rateC));
        },
      ),
    );
  });

  test('bonus and referral percentages round half up', () => {
    const p = (c: number, pct: number) => percentOf(c as Cents, pct);
    assert.equal(p(1235, 10), 124); // 123.5 -> 124
    assert.equal(p(1234, 10), 123); // 123.4 -> 123
    assert.equal(p(2000, 5), 100);
    assert.equal(p(1010, 5), 51); // 50.5 -> 51
    assert.equal(p(9, 5), 0); // 0.45 -> 0
    assert.equal(p(5000, 0), 0);
  });
});
