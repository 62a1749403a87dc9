/**
 * Staff price changes leave a trace: staff set every lease and port price to 1 cent and back, and
 * `GET /admin/audit` shows both changes of each table with who made them and the whole table
 * before and after; a refused change leaves no row.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS, type TAuditEntry } from '@pm/contracts';
import { newUserId } from '@pm/db/testing';
import { cents } from '@pm/money';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { callRoute, callRouteUnchecked } from '../../test/route.ts';

let t: TestApp;
let staffId: string;
let staff: Record<string, string>;

before(async () => {
  t = await createTestApp('pricing_audit', { payments: false });
  staffId = newUserId('staff');
  staff = await t.staffAuth(staffId);
});
after(async () => {
  await t?.close();
});

/** The audit rows of one action, newest first. */
const audited = async (action: 'pricing.rules' | 'pricing.ports'): Promise<TAuditEntry[]> =>
  (await callRoute(t, ENDPOINTS.listAuditEntries, { query: { action }, headers: staff })).ok().items;

describe('staff price changes are audited', () => {
  test('every lease price to 1 cent and back: both in /admin/audit with the list before and after', async () => {
    const original = (await callRoute(t, ENDPOINTS.getPricingRules, { headers: staff })).ok().rules;
    const body = (rules: typeof original) => ({ rules: rules.map(({ position: _, ...r }) => r) });
    const cheap = original.map((r) => ({ ...r, priceExcC: cents(1), priceShrC: cents(1) }));
    for (const rules of [cheap, original]) {
      (await callRoute(t, ENDPOINTS.replacePricingRules, { body: body(rules), headers: staff })).ok();
    }
    const [restore, lowered, ...older] = await audited('pricing.rules');
    assert.equal(older.length, 0);
    for (const row of [restore!, lowered!]) {
      assert.equal(row.actorId, staffId);
      assert.equal(row.targetId, 'pricing_rules');
    }
    assert.deepEqual(lowered!.before, { rows: original });
    assert.deepEqual(lowered!.after, { rows: cheap });
    assert.deepEqual(restore!.before, { rows: cheap });
    assert.deepEqual(restore!.after, { rows: original });
  });

  test('every port price to 1 cent (percents to their least) and back: both audited', async () => {
    type Row = { kind: string; key: string; value: number };
    const original = (await callRoute(t, ENDPOINTS.getPortPricing, { headers: staff })).ok().rows;
    const cheap = original.map((r) => ({ ...r, value: 1 }));
    for (const rows of [cheap, original]) {
      (await callRoute(t, ENDPOINTS.replacePortPricing, { body: { rows }, headers: staff })).ok();
    }
    const [restore, lowered, ...older] = await audited('pricing.ports');
    assert.equal(older.length, 0);
    for (const row of [restore!, lowered!]) {
      assert.equal(row.actorId, staffId);
      assert.equal(row.targetId, 'port_pricing');
    }
    const sorted = (rows: Row[]) =>
      [...rows].sort((a, b) => `${a.kind}${a.key}`.localeCompare(`${b.kind}${b.key}`));
    const rowsOf = (e: TAuditEntry['before']) => sorted((e as { rows: Row[] }).rows);
    assert.deepEqual(rowsOf(lowered!.before), sorted(original));
    assert.deepEqual(rowsOf(lowered!.after), sorted(cheap));
    assert.deepEqual(rowsOf(restore!.before), sorted(cheap));
    assert.deepEqual(rowsOf(restore!.after), sorted(original));
  });

  test("a refused change (a bad table, a customer's token) leaves no audit row", async () => {
    const rules = (await audited('pricing.rules')).length;
    const ports = (await audited('pricing.ports')).length;
    const bad = await callRouteUnchecked(t, ENDPOINTS.replacePortPricing, {
      body: { rows: [{ kind: 'gb', key: '1', value: 1 }] },
      headers: staff,
    });
    assert.equal(bad.statusCode, 400, bad.body);
    const customer = await t.auth(newUserId());
    const refused = await callRoute(t, ENDPOINTS.replacePricingRules, {
      body: { rules: [{ priceExcC: cents(1), priceShrC: cents(1) }] },
      headers: customer,
    });
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal((await audited('pricing.rules')).length, rules);
    assert.equal((await audited('pricing.ports')).length, ports);
  });
});
