/** The staff refund (`POST /admin/leases/{id}/refund`) is audited, and no staff member refunds their own lease. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS } from '@pm/contracts';
import { buildAccount, buildAgent, buildLease, buildNode, newUserId } from '@pm/db/testing';
import { cents } from '@pm/money';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { callRoute, callRouteUnchecked } from '../../test/route.ts';

let t: TestApp;
let nodeId: string;
const staffId = newUserId('staff');
let staff: Record<string, string>;

before(async () => {
  t = await createTestApp('leases_staff_refund', { payments: false });
  nodeId = (await buildNode(t.db)).id;
  staff = await t.staffAuth(staffId);
});
after(async () => {
  await t?.close();
});

/** A static lease bought a minute ago for 650, unused: staff may refund it. */
async function freshStaticLease(userId: string) {
  const agent = await buildAgent(t.db, { nodeId, isStatic: true });
  return buildLease(t.db, agent.id, {
    userId,
    static: true,
    exc: true,
    start: new Date(Date.now() - 60_000),
    untilMs: Date.now() + 23 * 3600_000,
    purchasePriceC: cents(650),
  });
}
const refund = (leaseId: string, headers = staff) =>
  callRoute(t, ENDPOINTS.staffRefundLease, { params: { id: leaseId }, headers });

describe('POST /admin/leases/{id}/refund and the audit trail (issue 23 hole 5)', () => {
  test('writes lease.refund with the customer, amount and balance', async () => {
    const customer = await buildAccount(t.db, { balanceC: 100 });
    const lease = await freshStaticLease(customer.userId);
    const res = await refund(lease.id);
    assert.equal(res.statusCode, 200, res.body);
    const rows = await t.db.query<{ actor_id: string; action: string; before: unknown; after: unknown }>(
      'SELECT actor_id, action, before, after FROM audit_log WHERE target_id = $1',
      [lease.id],
    );
    assert.deepEqual(rows, [
      {
        actor_id: staffId,
        action: 'lease.refund',
        before: { userId: customer.userId, endedAt: null },
        after: { refundC: 650, balanceC: 750 },
      },
    ]);
  });

  test("keeps staff's reason on the row; a body of another shape is a 400", async () => {
    const customer = await buildAccount(t.db, { balanceC: 100 });
    const lease = await freshStaticLease(customer.userId);
    // The body as given: an amount the schema does not know is refused.
    const post = (body: Record<string, unknown>) =>
      callRouteUnchecked(t, ENDPOINTS.staffRefundLease, { params: { id: lease.id }, headers: staff, body });
    assert.equal((await post({ reason: 'x', amountC: 99_999 })).statusCode, 400);
    const res = await post({ reason: '  customer asked on the bot  ' });
    assert.equal(res.statusCode, 200, res.body);
    const [row] = await t.db.query<{ reason: string | null }>(
      'SELECT reason FROM audit_log WHERE target_id = $1',
      [lease.id],
    );
    assert.equal(row?.reason, 'customer asked on the bot');
  });

  test('a refused refund leaves no row', async () => {
    const customer = await buildAccount(t.db);
    const lease = await freshStaticLease(customer.userId);
    await t.db.query('UPDATE leases SET reqs = 3 WHERE id = $1', [lease.id]);
    assert.equal((await refund(lease.id)).statusCode, 409);
    assert.equal((await t.db.query('SELECT 1 FROM audit_log WHERE target_id = $1', [lease.id])).length, 0);
  });

  test("a staff member's own lease: 403, not refunded", async () => {
    await buildAccount(t.db, { userId: staffId });
    const lease = await freshStaticLease(staffId);
    const res = await refund(lease.id);
    assert.equal(res.statusCode, 403, res.body);
    const [row] = await t.db.query<{ ended_at: Date | null }>('SELECT ended_at FROM leases WHERE id = $1', [
      lease.id,
    ]);
    assert.equal(row?.ended_at, null);
  });
});
