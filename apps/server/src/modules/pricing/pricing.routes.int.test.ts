import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  ENDPOINTS,
  MAX_PRICING_RULES,
  MAX_RULE_PRICE_C,
  type TPricingRuleInput,
  ZErrorBody,
  ZPricingRules,
} from '@pm/contracts';
import { buildAgent, buildNode, newUserId } from '@pm/db/testing';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { callRoute, callRouteUnchecked } from '../../test/route.ts';

let t: TestApp;
let staffId: string;
let staff: Record<string, string>;
let customer: Record<string, string>;

before(async () => {
  t = await createTestApp('pricing_routes');
  staffId = newUserId('staff');
  staff = await t.staffAuth(staffId);
  customer = await t.auth(newUserId());
  const node = await buildNode(t.db);
  const sold = new Date(Date.now() - 86_400_000);
  for (const [id, o] of [
    ['us-cell', { cc: 'US', conn: 'cell', stars: 8 }],
    ['us-wifi', { cc: 'US', conn: 'wifi', stars: 8 }],
    ['us-low', { cc: 'US', conn: 'wifi', stars: 2 }],
    ['us-sold', { cc: 'US', conn: 'wifi', stars: 8, lastSoldAt: sold }],
    ['ca-cell', { cc: 'CA', conn: 'cell', stars: 8 }],
    ['ca-sold', { cc: 'CA', conn: 'wifi', stars: 6, lastSoldAt: sold }],
  ] as const) {
    await buildAgent(t.db, { id, nodeId: node.id, ...o });
  }
});
after(async () => {
  await t?.close();
});

const getRules = async () => {
  return (await callRoute(t, ENDPOINTS.getPricingRules, { headers: staff })).ok();
};
/** The rules as given: the tests of refused lists send what the schema does not accept. */
const putRules = (rules: unknown, headers = staff) =>
  callRouteUnchecked(t, ENDPOINTS.replacePricingRules, { headers, body: { rules } });
/** [private, shared] of an agent as the shop shows it now. */
async function pricesOf(id: string): Promise<[number, number]> {
  const agent = (await callRoute(t, ENDPOINTS.getAgent, { params: { id }, headers: customer })).ok();
  return [agent.priceExcC, agent.priceShrC];
}
const catchAll = (priceExcC: number, priceShrC: number): TPricingRuleInput => ({
  priceExcC,
  priceShrC,
  note: 'Default',
});

describe('GET /pricing/rules', () => {
  test('the migration seeds the documented defaults, a catch-all last', async () => {
    const list = await getRules();
    assert.deepEqual(
      list.rules.map((r) => [
        r.position,
        r.cc,
        r.conn,
        r.minStars,
        r.maxStars,
        r.fresh,
        r.priceExcC,
        r.priceShrC,
      ]),
      [
        [1, null, 'cell', 1, 3, null, 500, 200],
        [2, null, 'cell', 4, 10, true, 900, 350],
        [3, null, 'cell', 4, 10, null, 800, 300],
        [4, null, null, 1, 3, null, 300, 120],
        [5, null, null, 4, 10, true, 600, 250],
        [6, null, null, 1, 10, null, 500, 200],
      ],
    );
    assert.equal(list.updatedBy, null);
    assert.deepEqual(await pricesOf('us-cell'), [900, 350]);
    assert.deepEqual(await pricesOf('us-wifi'), [600, 250]);
    assert.deepEqual(await pricesOf('us-low'), [300, 120]);
    assert.deepEqual(await pricesOf('us-sold'), [500, 200]);
  });

  test('staff only: 403 for a customer, 401 without a token', async () => {
    assert.equal((await callRoute(t, ENDPOINTS.getPricingRules, { headers: customer })).statusCode, 403);
    assert.equal((await callRoute(t, ENDPOINTS.getPricingRules)).statusCode, 401);
    assert.equal((await putRules([catchAll(100, 50)], customer)).statusCode, 403);
    assert.equal((await callRouteUnchecked(t, ENDPOINTS.replacePricingRules, { body: {} })).statusCode, 401);
  });
});

describe('PUT /pricing/rules', () => {
  test('replaces the list; the first matching rule prices each agent, the catch-all the rest; the shop shows it at once', async () => {
    const rules: TPricingRuleInput[] = [
      { cc: 'US', conn: 'cell', priceExcC: 1200, priceShrC: 450, note: 'US cell' },
      { cc: 'US', minStars: 1, maxStars: 3, priceExcC: 250, priceShrC: 100 },
      { fresh: false, priceExcC: 400, priceShrC: 150, note: 'Sold lately' },
      { cc: 'US', priceExcC: 700, priceShrC: 300 },
      { conn: 'cell', fresh: true, priceExcC: 1000, priceShrC: 400 },
      catchAll(550, 220),
    ];
    const res = await putRules(rules);
    assert.equal(res.statusCode, 200, res.body);
    const saved = ZPricingRules.parse(res.json());
    assert.deepEqual(
      saved.rules.map((r) => r.position),
      [1, 2, 3, 4, 5, 6],
    );
    assert.equal(saved.updatedBy, staffId);
    assert.deepEqual(await getRules(), saved);
    assert.deepEqual(await pricesOf('us-cell'), [1200, 450]);
    assert.deepEqual(await pricesOf('us-low'), [250, 100]);
    assert.deepEqual(await pricesOf('us-sold'), [400, 150]);
    assert.deepEqual(await pricesOf('us-wifi'), [700, 300]);
    assert.deepEqual(await pricesOf('ca-cell'), [1000, 400]);
    assert.deepEqual(await pricesOf('ca-sold'), [400, 150]);
    const list = await callRoute(t, ENDPOINTS.listAgents, {
      query: { cc: 'CA', limit: 50 },
      headers: customer,
    });
    assert.deepEqual(
      list.json().agents.map((a: { id: string; priceExcC: number }) => [a.id, a.priceExcC]),
      [
        ['ca-cell', 1000],
        ['ca-sold', 400],
      ],
    );

    assert.equal((await putRules([catchAll(500, 200)])).statusCode, 200);
    assert.deepEqual(await pricesOf('us-cell'), [500, 200], 'a lone catch-all prices everything');
  });

  test('invalid lists are a 400 naming the field and change nothing', async () => {
    assert.equal(
      (await putRules([{ cc: 'US', priceExcC: 900, priceShrC: 300 }, catchAll(500, 200)])).statusCode,
      200,
    );
    const before = await getRules();
    const many = Array.from({ length: MAX_PRICING_RULES }, () => ({
      cc: 'US',
      priceExcC: 500,
      priceShrC: 200,
    }));
    for (const [rules, field] of [
      [[], 'rules'],
      [[{ cc: 'US', priceExcC: 500, priceShrC: 200 }], 'rules.0'],
      [[catchAll(500, 200), { cc: 'US', priceExcC: 500, priceShrC: 200 }], 'rules.0'],
      [[catchAll(500, 200), catchAll(400, 100)], 'rules.0'],
      [
        [{ minStars: 5, maxStars: 4, priceExcC: 500, priceShrC: 200 }, catchAll(500, 200)],
        'rules.0.maxStars',
      ],
      [[{ minStars: 0, priceExcC: 500, priceShrC: 200 }, catchAll(500, 200)], 'rules.0.minStars'],
      [[{ maxStars: 11, priceExcC: 500, priceShrC: 200 }, catchAll(500, 200)], 'rules.0.maxStars'],
      [[catchAll(200, 500)], 'rules.0.priceShrC'],
      [[catchAll(0, 0)], 'rules.0.priceExcC'],
      [[catchAll(MAX_RULE_PRICE_C + 1, 100)], 'rules.0.priceExcC'],
      [[catchAll(500.5, 200)], 'rules.0.priceExcC'],
      [[{ cc: 'us', priceExcC: 500, priceShrC: 200 }, catchAll(500, 200)], 'rules.0.cc'],
      [[{ conn: 'dsl', priceExcC: 500, priceShrC: 200 }, catchAll(500, 200)], 'rules.0.conn'],
      [[{ fresh: 'yes', priceExcC: 500, priceShrC: 200 }, catchAll(500, 200)], 'rules.0.fresh'],
      [[{ ...catchAll(500, 200), colour: 'red' }], 'rules.0.colour'],
      [[{ ...catchAll(500, 200), note: 'x'.repeat(101) }], 'rules.0.note'],
      [[...many, catchAll(500, 200)], 'rules'],
    ] as const) {
      const res = await putRules(rules);
      assert.equal(res.statusCode, 400, `${field}: ${res.body}`);
      assert.equal(ZErrorBody.parse(res.json()).field, field, JSON.stringify(rules).slice(0, 200));
    }
    const noList = await callRouteUnchecked(t, ENDPOINTS.replacePricingRules, { headers: staff, body: {} });
    assert.equal(noList.statusCode, 400);
    assert.deepEqual(await getRules(), before);
  });

  test('concurrent replacements take turns: the list is one of them, whole', async () => {
    const a = [{ cc: 'US', priceExcC: 111, priceShrC: 11 }, catchAll(100, 10)];
    const b = [
      { cc: 'CA', priceExcC: 222, priceShrC: 22 },
      { conn: 'cell', priceExcC: 333, priceShrC: 33 },
      catchAll(200, 20),
    ];
    const results = await Promise.all([putRules(a), putRules(b), putRules(a), putRules(b)]);
    assert.deepEqual(
      results.map((r) => r.statusCode),
      [200, 200, 200, 200],
    );
    const prices = (await getRules()).rules.map((r) => r.priceExcC);
    assert.ok(
      JSON.stringify(prices) === '[111,100]' || JSON.stringify(prices) === '[222,333,200]',
      JSON.stringify(prices),
    );
  });
});
