import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TPricingRules } from '@pm/contracts';
import { cents } from '@pm/money';
import {
  blankRule,
  parseCents,
  parseWhole,
  toPortBody,
  toPortDrafts,
  toRuleDrafts,
  toRulesBody,
} from './pricing.ts';

const RULES: TPricingRules['rules'] = [
  {
    position: 1,
    cc: 'US',
    conn: 'cell',
    minStars: 4,
    maxStars: 10,
    fresh: true,
    priceExcC: cents(900),
    priceShrC: cents(350),
    note: 'Cell, new',
  },
  {
    position: 2,
    cc: null,
    conn: null,
    minStars: 1,
    maxStars: 10,
    fresh: null,
    priceExcC: cents(500),
    priceShrC: cents(200),
    note: 'Default',
  },
];

describe('admin pricing cells', () => {
  test('a price cell is dollars, turned into whole cents', () => {
    assert.equal(parseCents('5'), 500);
    assert.equal(parseCents('5.5'), 550);
    assert.equal(parseCents(' 5.05 '), 505);
    assert.equal(parseCents('$12.34'), 1234);
    assert.equal(parseCents('0.01'), 1);
    for (const bad of ['', 'abc', '5.555', '-5', '+5', '5,50', '1e3', '.5', '5.']) {
      assert.equal(parseCents(bad), null, bad);
    }
  });

  test('stars and percents are whole numbers', () => {
    assert.equal(parseWhole(' 7 '), 7);
    assert.equal(parseWhole('7.5'), null);
    assert.equal(parseWhole(''), null);
  });

  test('the GET answer round-trips through the drafts to the PUT body', () => {
    const drafts = toRuleDrafts(RULES);
    assert.deepEqual(drafts[0], {
      cc: 'US',
      conn: 'cell',
      minStars: '4',
      maxStars: '10',
      fresh: 'yes',
      priceExc: '9.00',
      priceShr: '3.50',
      note: 'Cell, new',
    });
    const body = toRulesBody(drafts);
    assert.ok(body.ok);
    assert.deepEqual(
      body.value.rules,
      RULES.map(({ position: _, ...r }) => r),
    );
  });

  test('an edited cell reaches the body; a bad one names its row', () => {
    const drafts = toRuleDrafts(RULES);
    drafts[1] = { ...(drafts[1] ?? blankRule()), priceExc: '7.25', cc: ' de ', fresh: 'no' };
    const body = toRulesBody(drafts);
    assert.ok(body.ok);
    assert.equal(body.value.rules[1]?.priceExcC, 725);
    assert.equal(body.value.rules[1]?.cc, 'DE');
    assert.equal(body.value.rules[1]?.fresh, false);

    drafts[1] = { ...(drafts[1] ?? blankRule()), priceShr: 'two' };
    assert.deepEqual(toRulesBody(drafts), {
      ok: false,
      error: 'Row 2: the shared price must be dollars, e.g. 2.00',
    });
  });

  test('a new row matches any agent at the price it copies', () => {
    const [first] = toRuleDrafts(RULES);
    assert.deepEqual(blankRule(first), {
      cc: '',
      conn: '',
      minStars: '1',
      maxStars: '10',
      fresh: '',
      priceExc: '9.00',
      priceShr: '3.50',
      note: '',
    });
  });

  test('port rows: cents as dollars, percents as whole numbers', () => {
    const rows = [
      { kind: 'gb' as const, key: '1', value: 150 },
      { kind: 'geo' as const, key: 'city', value: 120 },
    ];
    const drafts = toPortDrafts(rows);
    assert.deepEqual(
      drafts.map((d) => d.value),
      ['1.50', '120'],
    );
    assert.deepEqual(toPortBody(drafts), { ok: true, value: { rows } });
    const bad = drafts.map((d) => (d.kind === 'geo' ? { ...d, value: '1.5' } : d));
    assert.deepEqual(toPortBody(bad), {
      ok: false,
      error: 'Row 2 (geo city): the value must be a whole percent',
    });
  });
});
