/**
 * Staff price changes leave a trace: staff set every lease and port price to 1 cent and back, and
 * `GET /admin/audit` shows both changes of each table with who made them and the whole table
 * before and after; a refused change leaves no row.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TAuditEntry, ZAuditResponse, ZPricingRules } from '@pm/contracts';
import { newUserId } from '@pm/db/testing';
import { cents } from '@pm/money';
import { createTestApp, type TestApp } from '../../test/app.ts';

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

const json = { 'content-type': 'application/json' };
const put = (url: string, payload: object, headers = staff) =>
  t.app.inject({ method: 'PUT', url, headers: { ...headers, ...json }, payload });
const get = async (url: string) => {
  const res = await t.app.inject({ method: 'GET', url, headers: staff });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};
/** The audit rows of one action, newest first. */
const audited = async (action: string): Promise<TAuditEntry[]> =>
  ZAuditResponse.parse(await get(`/admin/audit?action=${action}`)).items;

describe('staff price changes are audited', () => {
  test('every lease price to 1 cent and back: both in /admin/audit with the list before and after', async () => {
    const original = ZPricingRules.parse(await get('/pricing/rules')).rules;
    const body = (rules: typeof original) => ({ rules: rules.map(({ position: _, ...r }) => r) });
    const cheap = original.map((r) => ({ ...r, priceExcC: cents(1), priceShrC: cents(1) }));
    assert.equal((await put('/pricing/rules', body(cheap))).statusCode, 200);
    assert.equal((await put('/pricing/rules', body(original))).statusCode, 200);
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
    const original = (await get('/pricing/ports')).rows as Row[];
    const cheap = original.map((r) => ({ ...r, value: 1 }));
    assert.equal((await put('/pricing/ports', { rows: cheap })).statusCode, 200);
    assert.equal((await put('/pricing/ports', { rows: original })).statusCode, 200);
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
    const bad = await put('/pricing/ports', { rows: [{ kind: 'gb', key: '1', value: 1 }] });
    assert.equal(bad.statusCode, 400, bad.body);
    const customer = await t.auth(newUserId());
    const refused = await put('/pricing/rules', { rules: [{ priceExcC: 1, priceShrC: 1 }] }, customer);
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal((await audited('pricing.rules')).length, rules);
    assert.equal((await audited('pricing.ports')).length, ports);
  });
});
