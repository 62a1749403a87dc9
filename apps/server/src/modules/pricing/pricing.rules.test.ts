import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cents } from '@pm/money';
import { matchesRule, type PriceRule, priceFor } from './pricing.rules.ts';

const rule = (position: number, o: Partial<PriceRule> = {}): PriceRule => ({
  position,
  cc: null,
  conn: null,
  minStars: 1,
  maxStars: 10,
  fresh: null,
  priceExcC: cents(500),
  priceShrC: cents(200),
  note: '',
  ...o,
});
const agent = { cc: 'US', conn: 'wifi' as const, stars: 6, isNew: true };

test('a null condition matches anything; each set condition must hold', () => {
  assert.ok(matchesRule(rule(1), agent));
  assert.ok(matchesRule(rule(1, { cc: 'US', conn: 'wifi', minStars: 6, maxStars: 6, fresh: true }), agent));
  assert.ok(!matchesRule(rule(1, { cc: 'CA' }), agent));
  assert.ok(!matchesRule(rule(1, { conn: 'cell' }), agent));
  assert.ok(!matchesRule(rule(1, { minStars: 7 }), agent));
  assert.ok(!matchesRule(rule(1, { maxStars: 5 }), agent));
  assert.ok(!matchesRule(rule(1, { fresh: false }), agent));
  assert.ok(matchesRule(rule(1, { fresh: false }), { ...agent, isNew: false }));
});

test('the first matching rule in order gives both prices; none matching gives undefined', () => {
  const rules = [
    rule(1, { conn: 'cell', priceExcC: cents(900), priceShrC: cents(350) }),
    rule(2, { cc: 'US', priceExcC: cents(700), priceShrC: cents(300) }),
    rule(3, { cc: 'US', priceExcC: cents(1), priceShrC: cents(1) }),
    rule(4),
  ];
  assert.deepEqual(priceFor(rules, agent), { priceExcC: 700, priceShrC: 300 });
  assert.deepEqual(priceFor(rules, { ...agent, conn: 'cell' }), { priceExcC: 900, priceShrC: 350 });
  assert.deepEqual(priceFor(rules, { ...agent, cc: 'GB' }), { priceExcC: 500, priceShrC: 200 });
  assert.equal(priceFor(rules.slice(0, 3), { ...agent, cc: 'GB' }), undefined);
});
