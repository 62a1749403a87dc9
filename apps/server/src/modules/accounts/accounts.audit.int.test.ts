import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS } from '@pm/contracts';
import { buildAccount, newUserId } from '@pm/db/testing';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { callRoute, callRouteUnchecked } from '../../test/route.ts';

let t: TestApp;
const staffId = newUserId('staff');
let staff: Record<string, string>;

before(async () => {
  t = await createTestApp('accounts_audit', { payments: false });
  staff = await t.staffAuth(staffId);
});
after(async () => {
  await t?.close();
});

interface AuditDbRow {
  actor_id: string;
  action: string;
  target_id: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  reason: string | null;
}
const auditRows = (targetId: string) =>
  t.db.query<AuditDbRow>(
    'SELECT actor_id, action, target_id, before, after, reason FROM audit_log WHERE target_id = $1 ORDER BY id',
    [targetId],
  );
/** The change as given: the tests also send bodies the schema refuses. */
const patch = (userId: string, body: object, headers = staff) =>
  callRouteUnchecked(t, ENDPOINTS.updateAccount, { params: { id: userId }, headers, body });

describe('PATCH /accounts/{id} writes the audit trail (issue 23 hole 5)', () => {
  test('a balance change writes account.balance with before, after and the reason', async () => {
    const acc = await buildAccount(t.db, { balanceC: 1000 });
    const res = await patch(acc.userId, { balanceDeltaC: -250, reason: 'chargeback on deposit 42' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(await auditRows(acc.userId), [
      {
        actor_id: staffId,
        action: 'account.balance',
        target_id: acc.userId,
        before: { balanceC: 1000 },
        after: { balanceC: 750 },
        reason: 'chargeback on deposit 42',
      },
    ]);
  });

  test('a permission change writes account.permissions; with a balance change in one patch, both rows', async () => {
    const acc = await buildAccount(t.db, { permissions: ['X'] });
    const res = await patch(acc.userId, {
      permissions: { add: ['DEPOSIT'] },
      balanceDeltaC: 100,
      reason: 'verified customer',
    });
    assert.equal(res.statusCode, 200, res.body);
    const rows = await auditRows(acc.userId);
    assert.deepEqual(
      rows.map((r) => [r.action, r.before, r.after, r.reason]),
      [
        [
          'account.permissions',
          { permissions: ['X'] },
          { permissions: ['X', 'DEPOSIT'] },
          'verified customer',
        ],
        ['account.balance', { balanceC: 0 }, { balanceC: 100 }, 'verified customer'],
      ],
    );
    const retried = await patch(acc.userId, { permissions: { add: ['DEPOSIT'] } });
    assert.equal(retried.statusCode, 200, retried.body);
    assert.equal((await auditRows(acc.userId)).length, 2, 'a grant that changes nothing writes no row');
  });

  test('a balance change without a reason is applied (rules §7 payload) and audited with no reason', async () => {
    const acc = await buildAccount(t.db, { balanceC: 10 });
    const res = await patch(acc.userId, { balanceDeltaC: 5 });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().balanceC, 15);
    const blank = await patch(acc.userId, { balanceDeltaC: 5, reason: '   ' });
    assert.equal(blank.statusCode, 200, blank.body);
    assert.equal(blank.json().balanceC, 20);
    assert.deepEqual(
      (await auditRows(acc.userId)).map((r) => [r.action, r.before, r.after, r.reason]),
      [
        ['account.balance', { balanceC: 10 }, { balanceC: 15 }, null],
        ['account.balance', { balanceC: 15 }, { balanceC: 20 }, null],
      ],
    );
  });

  test('a refused change (balance below zero) leaves no audit row', async () => {
    const acc = await buildAccount(t.db, { balanceC: 10 });
    const res = await patch(acc.userId, {
      balanceDeltaC: -11,
      permissions: { add: ['DEPOSIT'] },
      reason: 'x',
    });
    assert.equal(res.statusCode, 409, res.body);
    assert.deepEqual(await auditRows(acc.userId), []);
  });
});

describe('staff cannot change their own account (issue 23 hole 5)', () => {
  test('own balance: 403 with a clear message, nothing moved or recorded', async () => {
    await buildAccount(t.db, { userId: staffId, balanceC: 0 });
    const res = await patch(staffId, { balanceDeltaC: 100_000, reason: 'bonus' });
    assert.equal(res.statusCode, 403, res.body);
    assert.match(res.json().message, /own balance or permissions/);
    const acc = await callRoute(t, ENDPOINTS.getAccount, { params: { id: staffId }, headers: staff });
    assert.equal(acc.ok().balanceC, 0);
    assert.deepEqual(await auditRows(staffId), []);
  });

  test('own permissions: 403 as well', async () => {
    const res = await patch(staffId, { permissions: { add: ['DEPOSIT'] } });
    assert.equal(res.statusCode, 403, res.body);
    const acc = await callRoute(t, ENDPOINTS.getAccount, { params: { id: staffId }, headers: staff });
    assert.deepEqual(acc.ok().permissions, []);
  });

  test('the same staff member may still change another account', async () => {
    const other = await buildAccount(t.db);
    const res = await patch(other.userId, { permissions: { add: ['DEPOSIT'] } });
    assert.equal(res.statusCode, 200, res.body);
  });
});
