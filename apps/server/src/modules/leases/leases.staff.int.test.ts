/** Staff lease routes: look-ups by id, customer and IP, and the credit of an ended lease (rules §5). */
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
  t = await createTestApp('leases_staff', { payments: false });
  nodeId = (await buildNode(t.db)).id;
  staff = await t.staffAuth(staffId);
});
after(async () => {
  await t?.close();
});

/** A 24-hour lease bought for 700 two days ago: `ended` decides whether the expiry job ended it. */
async function leaseOf(userId: string, opts: { ended: boolean; ip?: string }) {
  const agent = await buildAgent(t.db, { nodeId, ...(opts.ip ? { ip: opts.ip } : {}) });
  const start = new Date(Date.now() - 48 * 3600_000);
  return buildLease(t.db, agent.id, {
    userId,
    start,
    untilMs: opts.ended ? start.getTime() + 24 * 3600_000 : Date.now() + 3600_000,
    purchasePriceC: cents(700),
    ...(opts.ended ? { endedAt: new Date(start.getTime() + 24 * 3600_000), endReason: 'expired' } : {}),
  });
}
const credit = (leaseId: string, headers = staff, body: object = { reason: 'proxy was dead all day' }) =>
  callRouteUnchecked(t, ENDPOINTS.creditLease, { params: { id: leaseId }, headers, body });
const ledgerRows = (userId: string) =>
  t.db.query<{ type: string; amt_c: string }>(
    'SELECT type, amt_c FROM txrecords WHERE user_id = $1 ORDER BY id',
    [userId],
  );
const auditRows = (leaseId: string) =>
  t.db.query<{ actor_id: string; action: string; before: unknown; after: unknown; reason: string | null }>(
    'SELECT actor_id, action, before, after, reason FROM audit_log WHERE target_id = $1 ORDER BY id',
    [leaseId],
  );

describe('GET /leases/{id} and GET /admin/leases (staff look-ups)', () => {
  test('staff read rules §3 admin lease info; unknown ids are 404', async () => {
    const customer = await buildAccount(t.db);
    const lease = await leaseOf(customer.userId, { ended: true });
    const res = await callRoute(t, ENDPOINTS.getAdminLease, { params: { id: lease.id }, headers: staff });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.id, lease.id);
    assert.equal(body.user, `urn:user:${customer.userId}`);
    assert.equal(body.purchasePriceC, 700);
    assert.equal(body.ended, true);
    assert.equal(body.refundAmountC, null);
    assert.equal(body.creditable, true);
    const missing = await callRoute(t, ENDPOINTS.getAdminLease, {
      params: { id: 'zzzz-0000' },
      headers: staff,
    });
    assert.equal(missing.statusCode, 404);
  });

  test('a customer is refused (403), even for their own lease', async () => {
    const customer = await buildAccount(t.db);
    const lease = await leaseOf(customer.userId, { ended: false });
    const own = await t.auth(customer.userId);
    const one = await callRoute(t, ENDPOINTS.getAdminLease, { params: { id: lease.id }, headers: own });
    assert.equal(one.statusCode, 403, one.body);
    const list = await callRoute(t, ENDPOINTS.findAdminLeases, {
      query: { uid: customer.userId },
      headers: own,
    });
    assert.equal(list.statusCode, 403, list.body);
  });

  test('by customer and by IP, newest first; neither is a 400', async () => {
    const customer = await buildAccount(t.db);
    const older = await leaseOf(customer.userId, { ended: true });
    const newer = await leaseOf(customer.userId, { ended: false, ip: '203.0.113.77' });
    await leaseOf((await buildAccount(t.db)).userId, { ended: false });
    const byUser = await callRoute(t, ENDPOINTS.findAdminLeases, {
      query: { uid: customer.userId },
      headers: staff,
    });
    assert.equal(byUser.statusCode, 200, byUser.body);
    assert.deepEqual(
      byUser
        .json()
        .leases.map((l: { id: string }) => l.id)
        .sort(),
      [older.id, newer.id].sort(),
    );
    assert.equal(byUser.json().total, 2);
    const byIp = await callRoute(t, ENDPOINTS.findAdminLeases, {
      query: { ip: '203.0.113.77' },
      headers: staff,
    });
    assert.equal(byIp.statusCode, 200, byIp.body);
    assert.deepEqual(
      byIp.json().leases.map((l: { id: string }) => l.id),
      [newer.id],
    );
    const none = await callRoute(t, ENDPOINTS.findAdminLeases, { headers: staff });
    assert.equal(none.statusCode, 400, none.body);
    const badIp = await callRoute(t, ENDPOINTS.findAdminLeases, { query: { ip: '1.2.3' }, headers: staff });
    assert.equal(badIp.statusCode, 400, badIp.body);
  });
});

describe('POST /admin/leases/{id}/credit: the purchase price, only once the lease has ended (rules §5)', () => {
  test('an ended lease is credited its purchase price once, with a lease.credit audit row', async () => {
    const customer = await buildAccount(t.db, { balanceC: 100 });
    const lease = await leaseOf(customer.userId, { ended: true });
    const res = await credit(lease.id);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { leaseID: lease.id, userId: customer.userId, creditC: 700, balanceC: 800 });
    assert.deepEqual(await auditRows(lease.id), [
      {
        actor_id: staffId,
        action: 'lease.credit',
        before: { userId: customer.userId, refundAmountC: null },
        after: { creditC: 700, balanceC: 800 },
        reason: 'proxy was dead all day',
      },
    ]);
    const info = (
      await callRoute(t, ENDPOINTS.getAdminLease, { params: { id: lease.id }, headers: staff })
    ).ok();
    assert.equal(info.refundAmountC, 700);
    assert.ok(info.refundTime);
    assert.equal(info.creditable, false);
  });

  test('a lease still running is refused (400 leaseNotEnded): nothing credited, no audit row', async () => {
    const customer = await buildAccount(t.db, { balanceC: 0 });
    const lease = await leaseOf(customer.userId, { ended: false });
    const res = await credit(lease.id);
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().errorCode, 'leaseNotEnded');
    assert.equal((await ledgerRows(customer.userId)).filter((r) => r.type === 'refund').length, 0);
    assert.deepEqual(await auditRows(lease.id), []);
  });

  test('hostile: a double click or a retry credits once (409 the second time)', async () => {
    const customer = await buildAccount(t.db, { balanceC: 0 });
    const lease = await leaseOf(customer.userId, { ended: true });
    const answers = await Promise.all([credit(lease.id), credit(lease.id), credit(lease.id)]);
    assert.deepEqual(answers.map((r) => r.statusCode).sort(), [200, 409, 409]);
    const retry = await credit(lease.id);
    assert.equal(retry.statusCode, 409, retry.body);
    assert.equal(retry.json().errorCode, 'alreadyCredited');
    const refunds = (await ledgerRows(customer.userId)).filter((r) => r.type === 'refund');
    assert.deepEqual(
      refunds.map((r) => Number(r.amt_c)),
      [700],
    );
    assert.equal((await auditRows(lease.id)).length, 1);
  });

  test('hostile: a lease the customer already had refunded is not credited again', async () => {
    const customer = await buildAccount(t.db, { balanceC: 0 });
    const lease = await leaseOf(customer.userId, { ended: true });
    await t.db.query('UPDATE leases SET refunded_at = ended_at, refund_amount_c = 700 WHERE id = $1', [
      lease.id,
    ]);
    const res = await credit(lease.id);
    assert.equal(res.statusCode, 409, res.body);
    assert.deepEqual(
      (await ledgerRows(customer.userId)).filter((r) => r.type === 'refund'),
      [],
    );
  });

  test('hostile: the customer cannot credit their own ended lease (403), nor can staff theirs', async () => {
    const customer = await buildAccount(t.db, { balanceC: 0 });
    const lease = await leaseOf(customer.userId, { ended: true });
    const asCustomer = await credit(lease.id, await t.auth(customer.userId));
    assert.equal(asCustomer.statusCode, 403, asCustomer.body);
    await buildAccount(t.db, { userId: staffId }).catch(() => undefined);
    const own = await leaseOf(staffId, { ended: true });
    const asOwner = await credit(own.id);
    assert.equal(asOwner.statusCode, 403, asOwner.body);
    assert.deepEqual(await auditRows(lease.id), []);
    assert.deepEqual(await auditRows(own.id), []);
    const unknown = await credit('zzzz-0000');
    assert.equal(unknown.statusCode, 404, unknown.body);
  });
});
