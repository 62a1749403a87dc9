/**
 * Port packages on the sale kernel, played by a hostile customer: refunds decided on the node's
 * exact counters and less the traffic used, Idempotency-Keys that compare the whole request (on
 * purchase, reactivation and refund), a blocked customer refused on every door that pays or routes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BYTES_PER_GB, ENDPOINTS, type TPortPackage, ZPortPackage, ZPortPackages } from '@pm/contracts';
import { buildAccount, buildAgent, buildNode, newUserId } from '@pm/db/testing';
import { compose } from '../../compose.ts';
import { createLogger } from '../../platform/logger.ts';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { type SimulatedPackageNode, simulatePackageNode } from '../../test/package-node.ts';
import { callRoute, callRouteUnchecked } from '../../test/route.ts';

const MiB = 1024 * 1024;
let t: TestApp;
let clock = Date.now();
let node: SimulatedPackageNode;
let nodeId: string;

before(async () => {
  t = await createTestApp('ports_kernel', {
    ports: true,
    payments: false,
    now: () => clock,
    settings: { portRefundFlushWaitMs: 600 },
  });
  nodeId = (await buildNode(t.db, { publicIp: '198.51.100.7' })).id;
  // Every port of the range bound and spare: the cycles below sell (and free) thousands of ports.
  await t.db.query(
    `INSERT INTO package_ports (node_id, port, bound_at) SELECT $1, p, now()
       FROM generate_series(30000, 39999) AS p ON CONFLICT (node_id, port) DO NOTHING`,
    [nodeId],
  );
  for (const city of ['New York', 'New York', 'Buffalo']) {
    await buildAgent(t.db, { nodeId, cc: 'US', reg: 'New York', city, conn: 'wifi' });
  }
  node = await simulatePackageNode(t.db);
});
after(async () => {
  await node?.stop();
  assert.deepEqual(node?.errors ?? [], []);
  await t?.close();
});

type Customer = { userId: string; headers: Record<string, string> };
async function customer(balanceC: number): Promise<Customer> {
  const userId = newUserId();
  await buildAccount(t.db, { userId, balanceC });
  return { userId, headers: await t.auth(userId) };
}
const request = (c: Customer, over: Record<string, unknown> = {}) => ({
  user_id: c.userId,
  price: 390,
  time_period: 1,
  traffic: { type: 'limit', amount: 1 },
  geo: { country: 'US', state: 'New York', city: 'New York', connection_type: 'both' },
  access: { type: 'auth', port_amount: 100 },
  switch: { type: 'timer', timer: 5 },
  ...over,
});
/** `POST /package/create` with `request`'s loose body: the tests vary it field by field. */
const create = (headers: Record<string, string>, body: ReturnType<typeof request>) =>
  callRouteUnchecked(t, ENDPOINTS.createPortPackage, { headers, body });
/** The rotation link as the package shows it (its key may be absent: sent as written). */
const rotate = (pkg: TPortPackage) =>
  callRouteUnchecked(t, ENDPOINTS.rotatePortIp, {
    params: { port: pkg.access.ports[0]!, key: String(pkg.switch.api_key) },
  });
async function buy(c: Customer, over: Record<string, unknown> = {}) {
  const res = await create(c.headers, request(c, over));
  assert.equal(res.statusCode, 200, res.body);
  return ZPortPackage.parse(res.json());
}
const refund = (c: Customer, id: string, key?: string) =>
  callRoute(t, ENDPOINTS.refundPortPackage, {
    params: { id },
    headers: key ? { ...c.headers, 'idempotency-key': key } : c.headers,
  });
const reactivate = (c: Customer, id: string, key?: string) =>
  callRoute(t, ENDPOINTS.reactivatePortPackage, {
    params: { id },
    headers: key ? { ...c.headers, 'idempotency-key': key } : c.headers,
  });
async function balanceOf(userId: string): Promise<number> {
  const rows = await t.db.query<{ b: string }>('SELECT balance_c AS b FROM accounts WHERE user_id = $1', [
    userId,
  ]);
  return Number(rows[0]?.b);
}
async function assertBooksBalanced(userId: string) {
  const rows = await t.db.query<{ b: string; s: string }>(
    'SELECT a.balance_c AS b, (SELECT coalesce(sum(amt_c), 0) FROM txrecords r WHERE r.user_id = a.user_id) AS s FROM accounts a WHERE a.user_id = $1',
    [userId],
  );
  assert.equal(rows[0]?.b, rows[0]?.s, 'balance equals the sum of the ledger rows');
}
/** Whether a refund's request for exact counters (the node's freeze) is still pending. */
const flushRequested = async (id: string) =>
  (
    await t.db.query<{ on: boolean }>(
      'SELECT flush_requested_at IS NOT NULL AS on FROM port_packages WHERE id = $1',
      [id],
    )
  )[0]?.on;
const suspend = (id: string) => t.db.query("UPDATE port_packages SET status = 'suspend' WHERE id = $1", [id]);

describe('refunds decided on exact counters', () => {
  test('use 200 MiB the node has not flushed yet, then refund: nothing comes back', async () => {
    const c = await customer(1000);
    const pkg = await buy(c);
    node.relay(pkg.id, 200 * MiB);
    const res = await refund(c, pkg.id);
    assert.equal(res.statusCode, 409, res.body);
    assert.equal(res.json().errorCode, 'notRefundable');
    assert.equal(await balanceOf(c.userId), 610, 'nothing refunded');
    const [row] = ZPortPackages.parse(
      (
        await callRoute(t, ENDPOINTS.listPortPackages, { params: { id: c.userId }, headers: c.headers })
      ).json(),
    ).packages;
    assert.equal(row?.stats.download, 200 * MiB, 'the node flushed before the decision');
    assert.equal(row?.status.type, 'active');
    assert.equal(row?.refundable, false, 'the flag shows the same rule');
    assert.equal(await flushRequested(pkg.id), false, 'the refusal withdrew its request: the node unfreezes');
  });

  test('20 buy-use-refund cycles: every byte used is paid for at the per-Gb price', async () => {
    const c = await customer(10_000);
    let paidC = 0;
    for (let i = 0; i < 20; i++) {
      const pkg = await buy(c);
      node.relay(pkg.id, 10 * MiB); // the whole allowance, flushed only when the refund asks
      const before = await balanceOf(c.userId);
      const res = await refund(c, pkg.id);
      assert.equal(res.statusCode, 200, res.body);
      const back = (await balanceOf(c.userId)) - before;
      assert.equal(back, 386, `cycle ${i}: $3.90 less 10 MiB at $3.90 per Gb, rounded up`);
      paidC += 390 - back;
    }
    const usedValueC = (20 * 10 * MiB * 390) / BYTES_PER_GB;
    assert.ok(paidC >= usedValueC, `paid ${paidC} cents for traffic worth ${usedValueC}`);
    assert.equal(await balanceOf(c.userId), 10_000 - paidC);
    const refunded = await t.db.query<{ r: string }>(
      "SELECT refunded_c AS r FROM port_packages WHERE user_id = $1 AND status = 'refunded'",
      [c.userId],
    );
    assert.deepEqual(
      refunded.map((r) => Number(r.r)),
      Array(20).fill(386),
    );
    await assertBooksBalanced(c.userId);
  });

  test('a 100 Gb package may use 1000 MB and refund, but pays for that traffic', async () => {
    const c = await customer(100_000);
    const pkg = await buy(c, { price: 39_000, traffic: { type: 'limit', amount: 100 } });
    node.relay(pkg.id, 900 * MiB);
    const res = await refund(c, pkg.id);
    assert.equal(res.statusCode, 200, res.body);
    // 900 MiB of 100 Gb at $390: 342.77 cents, rounded up.
    assert.equal(await balanceOf(c.userId), 100_000 - 343);
    assert.equal(res.json().status.type, 'refunded');
  });

  test("a live node that does not answer: 503 with Retry-After; a silent node's counters are final", async () => {
    const c = await customer(1000);
    const pkg = await buy(c);
    node.mute(pkg.id);
    const res = await refund(c, pkg.id);
    assert.equal(res.statusCode, 503, res.body);
    assert.equal(res.headers['retry-after'], '1');
    assert.equal(res.json().retryAfterSeconds, 1);
    assert.equal(await balanceOf(c.userId), 610);
    assert.equal(await flushRequested(pkg.id), false, 'a late node’s freeze is withdrawn too');
    await t.db.query("UPDATE gateway_nodes SET last_heartbeat = now() - interval '1 minute' WHERE id = $1", [
      nodeId,
    ]);
    try {
      const again = await refund(c, pkg.id);
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(await balanceOf(c.userId), 1000);
    } finally {
      await t.db.query('UPDATE gateway_nodes SET last_heartbeat = now() WHERE id = $1', [nodeId]);
    }
  });
});

describe('Idempotency-Key through the sale kernel', () => {
  test('a purchase key answers only the same whole request', async () => {
    const c = await customer(10_000);
    const headers = { ...c.headers, 'idempotency-key': 'buy-1' };
    const first = await create(headers, request(c));
    assert.equal(first.statusCode, 200, first.body);
    const same = await create(headers, request(c));
    assert.equal(same.json().id, first.json().id);
    for (const other of [
      { geo: { country: 'US', state: 'New York', city: 'Buffalo', connection_type: 'both' } },
      { access: { type: 'auth', port_amount: 200 }, price: 520 },
      { access: { type: 'whitelist', whitelist_ips: '203.0.113.9', port_amount: 100 } },
      { switch: { type: 'api' } },
      { switch: { type: 'timer', timer: 10 } },
      { time_period: 7, price: 455 },
    ]) {
      const res = await create(headers, request(c, other));
      assert.equal(res.statusCode, 409, JSON.stringify(other));
      assert.equal(res.json().errorCode, 'idempotencyKeyReused', JSON.stringify(other));
    }
    assert.equal(await balanceOf(c.userId), 10_000 - 390, 'charged once');
    const keys = await t.db.query<{ kind: string; package_id: string }>(
      'SELECT kind, package_id FROM sale_requests WHERE user_id = $1',
      [c.userId],
    );
    assert.deepEqual(keys, [{ kind: 'port', package_id: first.json().id }]);
  });

  test('reactivation and refund under a key: parallel twins charge and pay once, a retry answers again', async () => {
    const c = await customer(1000);
    const pkg = await buy(c);
    await suspend(pkg.id);
    const twins = await Promise.all([1, 2, 3].map(() => reactivate(c, pkg.id, 'react-1')));
    assert.deepEqual(
      twins.map((r) => r.statusCode),
      [200, 200, 200],
    );
    assert.equal(await balanceOf(c.userId), 1000 - 2 * 390, 'one reactivation charge');
    assert.equal((await reactivate(c, pkg.id, 'react-1')).statusCode, 200, 'a retry answers the package');
    assert.equal((await reactivate(c, pkg.id)).statusCode, 409, 'without the key: not suspended');
    const reused = await refund(c, pkg.id, 'react-1');
    assert.equal(reused.json().errorCode, 'idempotencyKeyReused');
    const refunds = await Promise.all([1, 2, 3].map(() => refund(c, pkg.id, 'refund-1')));
    assert.deepEqual(
      refunds.map((r) => [r.statusCode, r.json().status.type]),
      Array(3).fill([200, 'refunded']),
    );
    assert.equal((await refund(c, pkg.id, 'refund-1')).statusCode, 200);
    assert.equal(await balanceOf(c.userId), 1000 - 390, 'the reactivation charge came back once');
    await assertBooksBalanced(c.userId);
    const keys = await t.db.query<{ kind: string; package_id: string; price_c: string }>(
      'SELECT kind, package_id, price_c FROM sale_requests WHERE user_id = $1 ORDER BY kind',
      [c.userId],
    );
    assert.deepEqual(
      keys.map((k) => [k.kind, k.package_id, Number(k.price_c)]),
      [
        ['port-refund', pkg.id, 390],
        ['reactivate', pkg.id, 390],
      ],
    );
  });
});

describe('rules that pay out or route', () => {
  test('a blocked customer: purchase, reactivation and the rotation link are refused 403 accountBlocked', async () => {
    const c = await customer(5000);
    const pkg = await buy(c);
    const second = await buy(c);
    await suspend(second.id);
    await t.db.query('UPDATE accounts SET blocked = true WHERE user_id = $1', [c.userId]);
    const refusals = [await create(c.headers, request(c)), await reactivate(c, second.id), await rotate(pkg)];
    for (const res of refusals) {
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json().errorCode, 'accountBlocked');
    }
    assert.equal(await balanceOf(c.userId), 5000 - 2 * 390);
    await t.db.query('UPDATE accounts SET blocked = false WHERE user_id = $1', [c.userId]);
    const rotated = await rotate(pkg);
    assert.equal(rotated.statusCode, 200, rotated.body);
  });

  test("reactivation only once a package stops serving; suspension by the service's clock", async () => {
    const c = await customer(5000);
    const pkg = await buy(c);
    assert.equal((await reactivate(c, pkg.id)).statusCode, 409, 'still serving');
    const { services } = compose({ db: t.db, log: createLogger({ level: 'silent' }), now: () => clock });
    clock += 86_400_000 + 1000; // past date_finish by the service's clock, not yet by the database's
    try {
      const res = await reactivate(c, pkg.id);
      assert.equal(res.statusCode, 200, 'an active package past its date, not yet marked, is reactivated');
      assert.equal(await balanceOf(c.userId), 5000 - 2 * 390);
      const other = await buy(c);
      clock += 86_400_000 + 1000;
      assert.ok((await services.ports.suspendDue()) >= 2);
      const rows = await t.db.query<{ id: string; status: string; suspend_reason: string }>(
        'SELECT id, status, suspend_reason FROM port_packages WHERE id = ANY($1) ORDER BY id',
        [[pkg.id, other.id]],
      );
      assert.deepEqual(
        rows.map((r) => [r.status, r.suspend_reason]),
        [
          ['suspend', 'expired'],
          ['suspend', 'expired'],
        ],
      );
    } finally {
      clock = Date.now();
    }
  });
});
