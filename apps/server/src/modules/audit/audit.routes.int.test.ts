import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS, type QueryOf, ZAuditResponse } from '@pm/contracts';
import { newUserId } from '@pm/db/testing';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { callRoute, callRouteUnchecked } from '../../test/route.ts';
import { createAuditService } from './audit.service.ts';

let t: TestApp;
let staff: Record<string, string>;

before(async () => {
  t = await createTestApp('audit_routes', { payments: false });
  staff = await t.staffAuth(newUserId('staff'));
});
after(async () => {
  await t?.close();
});

const list = (query: QueryOf<typeof ENDPOINTS.listAuditEntries>, headers = staff) =>
  callRoute(t, ENDPOINTS.listAuditEntries, { query, headers });

describe('GET /admin/audit', () => {
  test('a customer gets 403, no token 401', async () => {
    const customer = await list({}, await t.auth(newUserId()));
    assert.equal(customer.statusCode, 403, customer.body);
    const anonymous = await callRoute(t, ENDPOINTS.listAuditEntries);
    assert.equal(anonymous.statusCode, 401);
  });

  test('record() writes in the caller transaction: a rollback leaves no row', async () => {
    const audit = createAuditService({ db: t.db.db });
    const target = newUserId('rolled');
    await assert.rejects(
      t.db.db.transaction(async (tx) => {
        await audit.record(tx, { actorId: 'a', action: 'account.balance', targetId: target, reason: 'x' });
        throw new Error('the change failed');
      }),
      /the change failed/,
    );
    const res = await list({ target });
    assert.equal(res.json().total, 0);
  });

  test('filters by actor, target, action and dates; newest first; offset/limit page', async () => {
    const audit = createAuditService({ db: t.db.db });
    const [alice, bob, cust] = [newUserId('alice'), newUserId('bob'), newUserId('cust')];
    await t.db.db.transaction(async (tx) => {
      await audit.record(tx, {
        actorId: alice,
        action: 'account.balance',
        targetId: cust,
        before: { balanceC: 0 },
        after: { balanceC: 500 },
        reason: 'goodwill',
      });
    });
    await t.db.db.transaction(async (tx) => {
      await audit.record(tx, {
        actorId: bob,
        action: 'user.block',
        targetId: cust,
        after: { blocked: true },
      });
    });
    await t.db.db.transaction(async (tx) => {
      await audit.record(tx, { actorId: alice, action: 'lease.refund', targetId: 'lease-1' });
    });

    const byTarget = await list({ target: cust });
    assert.equal(byTarget.statusCode, 200, byTarget.body);
    const body = ZAuditResponse.parse(byTarget.json());
    assert.equal(body.total, 2);
    assert.deepEqual(
      body.items.map((i) => i.action),
      ['user.block', 'account.balance'],
    );
    assert.deepEqual(body.items[1], {
      ...body.items[1],
      actorId: alice,
      before: { balanceC: 0 },
      after: { balanceC: 500 },
      reason: 'goodwill',
    });

    assert.equal((await list({ actor: alice })).json().total, 2);
    assert.equal((await list({ actor: alice, action: 'lease.refund' })).json().total, 1);
    const page = await list({ actor: alice, offset: 1, limit: 1 });
    assert.equal(page.json().items.length, 1);
    assert.equal(page.json().items[0].action, 'account.balance');
    assert.equal(page.json().total, 2);

    assert.equal((await list({ actor: alice, from: '2000-01-01', to: '2000-01-02' })).json().total, 0);
    assert.equal((await list({ actor: alice, from: '2000-01-01' })).json().total, 2);

    // An action the contract does not list: sent as is, refused.
    const bad = await callRouteUnchecked(t, ENDPOINTS.listAuditEntries, {
      query: { action: 'account.delete' },
      headers: staff,
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().field, 'action');
  });
});
