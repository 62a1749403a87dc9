import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { auditPersonIds, describeAuditChange } from './auditText.ts';

describe('the audit trail read by staff (issue 36 item 5)', () => {
  test('a balance change reads in dollars', () => {
    assert.deepEqual(describeAuditChange({ balanceC: 1000 }, { balanceC: 1500 }), [
      'balance $10.00 -> $15.00',
    ]);
  });
  test('a block reads yes/no; a 2FA reset on/off', () => {
    assert.deepEqual(describeAuditChange({ blocked: false }, { blocked: true }), ['blocked: no -> yes']);
    assert.deepEqual(describeAuditChange({ twoFactor: true }, { twoFactor: false }), [
      'two-factor: on -> off',
    ]);
  });
  test('a permission change names what was added or removed', () => {
    assert.deepEqual(describeAuditChange({ permissions: [] }, { permissions: ['DEPOSIT'] }), [
      'permissions: + DEPOSIT',
    ]);
    assert.deepEqual(describeAuditChange({ permissions: ['DEPOSIT', 'X'] }, { permissions: ['X'] }), [
      'permissions: - DEPOSIT',
    ]);
  });
  test('a lease refund shows the amount and the balance, not the ids or raw JSON', () => {
    const lines = describeAuditChange({ userId: 'u1', endedAt: null }, { refundC: 650, balanceC: 750 });
    assert.deepEqual(lines, ['refund $6.50', 'balance $7.50']);
    assert.ok(lines.every((l) => !/[{}"]/.test(l)));
  });
  test('a price table reads as row counts', () => {
    assert.deepEqual(describeAuditChange({ rows: [{ a: 1 }] }, { rows: [{ a: 1 }, { a: 2 }] }), [
      'rows: 1 row(s) -> 2 row(s)',
    ]);
  });
  test("a deep check's query reads as its fields", () => {
    assert.deepEqual(describeAuditChange({ query: { txid: 'ab', user_id: 'u1' } }, { creditedC: 0 }), [
      'query was txid ab, user_id u1',
      'credited in all $0.00',
    ]);
  });
  test('no before and no after: nothing to read', () => {
    assert.deepEqual(describeAuditChange(null, null), []);
  });
  test('people are the staff actors and the targets of user, account and payment rows', () => {
    const ids = auditPersonIds([
      { actorId: 's1', action: 'user.block', targetId: 'c1' },
      { actorId: 'operator:ann', action: 'user.twoFactorReset', targetId: 'c2' },
      { actorId: 's1', action: 'lease.refund', targetId: 'ab12-0042' },
    ]);
    assert.deepEqual(ids.sort(), ['c1', 'c2', 's1']);
  });
});
