import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS, type Endpoint, ZPortPackage, ZPortPackages } from '@pm/contracts';
import { buildAccount, buildAgent, buildNode, newUserId } from '@pm/db/testing';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { type SimulatedPackageNode, simulatePackageNode } from '../../test/package-node.ts';
import { callRoute, callRouteUnchecked, type RouteCall } from '../../test/route.ts';

let t: TestApp;
let clock = Date.now();
let nodeA: string;
let nodeB: string;
let node: SimulatedPackageNode;

before(async () => {
  t = await createTestApp('ports_routes', { ports: true, payments: false, now: () => clock });
  // The nodes answer refunds' flush requests as the gateway's meter does.
  node = await simulatePackageNode(t.db);
  nodeA = (await buildNode(t.db, { publicIp: '198.51.100.1' })).id;
  nodeB = (await buildNode(t.db, { publicIp: '198.51.100.2' })).id;
  // Every port of both nodes' ranges bound and spare: the tests sell (and free) thousands of ports.
  await t.db.query(
    `INSERT INTO package_ports (node_id, port, bound_at) SELECT n, p, now()
       FROM unnest($1::text[]) AS n, generate_series(30000, 39999) AS p ON CONFLICT (node_id, port) DO NOTHING`,
    [[nodeA, nodeB]],
  );
  // Node A: three New York wifi exits; node B: one New York cell exit, two California cell exits.
  for (let i = 0; i < 3; i++) {
    await buildAgent(t.db, { nodeId: nodeA, cc: 'US', reg: 'New York', city: 'New York', conn: 'wifi' });
  }
  await buildAgent(t.db, { nodeId: nodeB, cc: 'US', reg: 'New York', city: 'New York', conn: 'cell' });
  for (let i = 0; i < 2; i++) {
    await buildAgent(t.db, { nodeId: nodeB, cc: 'US', reg: 'California', city: 'Los Angeles', conn: 'cell' });
  }
  await buildAgent(t.db, { nodeId: nodeB, cc: 'DE', reg: 'Berlin', city: 'Berlin', online: false });
});
after(async () => {
  await node?.stop();
  assert.deepEqual(node?.errors ?? [], []);
  await t?.close();
});

async function customer(balanceC: number) {
  const userId = newUserId();
  await buildAccount(t.db, { userId, balanceC });
  return { userId, headers: await t.auth(userId) };
}
const nyRequest = (userId: string, price: number, over: Record<string, unknown> = {}) => ({
  user_id: userId,
  price,
  time_period: 1,
  traffic: { type: 'limit', amount: 1 },
  geo: { country: 'US', state: 'New York', city: 'New York', connection_type: 'both' },
  access: { type: 'auth', port_amount: 100 },
  switch: { type: 'timer', timer: 5 },
  ...over,
});
/** A Ports API POST with any body: the tests vary requests field by field, refused ones too. */
const post = (e: Endpoint, headers: Record<string, string>, body: unknown) =>
  callRouteUnchecked(t, e, { headers, body });
/** A Ports API GET by its operation, its path parameters and query typed by the contract. */
const get = <E extends Endpoint>(
  e: E,
  params: RouteCall<E>['params'],
  headers: Record<string, string> = {},
  query?: RouteCall<E>['query'],
) =>
  // Each part is typed above; TypeScript cannot rebuild the request type from them generically.
  callRoute(t, e, { params, headers, query } as unknown as RouteCall<E>);
async function balanceOf(userId: string): Promise<number> {
  const rows = await t.db.query<{ b: string }>('SELECT balance_c AS b FROM accounts WHERE user_id = $1', [
    userId,
  ]);
  return Number(rows[0]?.b);
}
/** The books: each account's balance is the sum of its ledger rows. */
async function assertBooksBalanced(userId: string) {
  const rows = await t.db.query<{ b: string; s: string }>(
    'SELECT a.balance_c AS b, COALESCE((SELECT sum(amt_c) FROM txrecords r WHERE r.user_id = a.user_id), 0) AS s FROM accounts a WHERE a.user_id = $1',
    [userId],
  );
  assert.equal(rows[0]?.b, rows[0]?.s, 'balance equals the sum of the ledger rows');
}
async function buy(
  c: { userId: string; headers: Record<string, string> },
  over: Record<string, unknown> = {},
) {
  const body = nyRequest(c.userId, 0, over);
  const price = (
    await post(ENDPOINTS.quotePortPrice, c.headers, {
      time_period: body.time_period,
      traffic: body.traffic,
      geo: body.geo,
      access: body.access,
    })
  ).json().price;
  const res = await post(ENDPOINTS.createPortPackage, c.headers, { ...body, price });
  assert.equal(res.statusCode, 200, res.body);
  return ZPortPackage.parse(res.json());
}

describe('POST /price', () => {
  test('prices from the seeded table: volume, count, period, geo depth, connection, access', async () => {
    const c = await customer(0);
    const price = async (over: Record<string, unknown>) => {
      const b = nyRequest(c.userId, 0, over);
      const res = await post(ENDPOINTS.quotePortPrice, c.headers, {
        time_period: b.time_period,
        traffic: b.traffic,
        geo: b.geo,
        access: b.access,
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().price;
    };
    // 1 Gb × 300 + 0 for 100 ports, city depth 130 %.
    assert.equal(await price({}), 390);
    assert.equal(await price({ geo: { country: 'US', connection_type: 'both' } }), 300);
    assert.equal(await price({ geo: { country: 'US', state: 'New York', connection_type: 'mobile' } }), 518);
    assert.equal(
      await price({
        time_period: 7,
        traffic: { type: 'limit', amount: 10 },
        access: { type: 'auth', port_amount: 400 },
        geo: { country: 'US' },
      }),
      3800,
    );
    assert.equal(
      await price({ time_period: 30, traffic: { type: 'unlimit' }, geo: { country: 'US' } }),
      40000,
    );
    for (const bad of [
      { time_period: 2 },
      { traffic: { type: 'limit', amount: 4 } },
      { access: { type: 'auth', port_amount: 150 } },
    ]) {
      const b = nyRequest(c.userId, 0, bad);
      const res = await post(ENDPOINTS.quotePortPrice, c.headers, {
        time_period: b.time_period,
        traffic: b.traffic,
        geo: b.geo,
        access: b.access,
      });
      assert.equal(res.statusCode, 400, JSON.stringify(bad));
      assert.ok(res.json().error, 'errors carry the error field');
      if (bad.access) {
        assert.equal(
          res.json().message,
          'error while getting port price: access.port_amount must be one of 100, 200, 300, 400',
        );
      }
    }
    assert.equal((await post(ENDPOINTS.quotePortPrice, {}, { time_period: 1 })).statusCode, 401);
  });
});

describe('POST /package/create', () => {
  test('charges the price through the ledger, puts the ports on the node with the most matching exits', async () => {
    const c = await customer(1000);
    const pkg = await buy(c);
    assert.equal(pkg.price, 390);
    assert.equal(pkg.access.ports.length, 100);
    assert.equal(pkg.access.port_service_ip, '198.51.100.1', 'node A has three New York exits');
    assert.equal(pkg.status.type, 'active');
    assert.match(pkg.access.auth_login, /^u[a-z0-9]{11}$/);
    assert.equal(pkg.access.auth_password.length, 16);
    assert.equal(await balanceOf(c.userId), 610);
    await assertBooksBalanced(c.userId);
    const cell = await buy(c, {
      geo: { country: 'US', state: 'California', connection_type: 'mobile' },
      traffic: { type: 'limit', amount: 1 },
    });
    assert.equal(cell.access.port_service_ip, '198.51.100.2');
    const list = ZPortPackages.parse(
      (await get(ENDPOINTS.listPortPackages, { id: c.userId }, c.headers)).json(),
    );
    assert.deepEqual(
      list.packages.map((p) => p.id),
      [cell.id, pkg.id],
    );
    assert.equal(new Set([...pkg.access.ports]).size, 100);
    assert.deepEqual(pkg.exits, [], 'no exit before the first connection');
    const agent = await t.db.query<{ id: string; ip: string }>(
      'SELECT id, ip FROM agents WHERE node_id = $1 LIMIT 1',
      [nodeA],
    );
    await t.db.query('UPDATE package_ports SET agent_id = $1 WHERE package_id = $2 AND port = $3', [
      agent[0]!.id,
      pkg.id,
      pkg.access.ports[0],
    ]);
    const again = ZPortPackages.parse(
      (await get(ENDPOINTS.listPortPackages, { id: c.userId }, c.headers)).json(),
    );
    assert.deepEqual(again.packages[1]?.exits, [{ port: pkg.access.ports[0], ip: agent[0]!.ip }]);
  });

  test('refusals: stale price 409 priceChanged, short balance 402, no exits 409, another user_id 403', async () => {
    const c = await customer(100);
    let res = await post(ENDPOINTS.createPortPackage, c.headers, nyRequest(c.userId, 1));
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().errorCode, 'priceChanged');
    assert.equal(res.json().price, 390);
    res = await post(ENDPOINTS.createPortPackage, c.headers, nyRequest(c.userId, 390));
    assert.equal(res.statusCode, 402);
    assert.equal(res.json().errorCode, 'notEnoughFunds');
    const rich = await customer(100_000);
    res = await post(
      ENDPOINTS.createPortPackage,
      rich.headers,
      nyRequest(rich.userId, 300, { geo: { country: 'DE', connection_type: 'both' } }),
    );
    assert.equal(res.statusCode, 409, res.body);
    assert.equal(res.json().errorCode, 'noExits');
    res = await post(ENDPOINTS.createPortPackage, rich.headers, nyRequest(c.userId, 390));
    assert.equal(res.statusCode, 403);
    res = await post(
      ENDPOINTS.createPortPackage,
      rich.headers,
      nyRequest(rich.userId, 390, { access: { type: 'whitelist', whitelist_ips: '1.2.3.4, 300.1.1.1' } }),
    );
    assert.equal(res.statusCode, 400);
    assert.equal(await balanceOf(c.userId), 100);
    assert.equal(await balanceOf(rich.userId), 100_000);
    assert.equal(
      (await get(ENDPOINTS.listPortPackages, { id: rich.userId }, c.headers)).statusCode,
      403,
      "another customer's list",
    );
  });
});

describe('Idempotency-Key on POST /package/create', () => {
  test('a double click (five parallel twins) buys one package and charges once; the key for another package is 409', async () => {
    const c = await customer(1000);
    const headers = { ...c.headers, 'idempotency-key': 'click-1' };
    const twins = await Promise.all(
      Array.from({ length: 5 }, () => post(ENDPOINTS.createPortPackage, headers, nyRequest(c.userId, 390))),
    );
    assert.deepEqual(
      twins.map((r) => r.statusCode),
      [200, 200, 200, 200, 200],
    );
    assert.equal(new Set(twins.map((r) => r.json().id)).size, 1, 'one package');
    assert.equal(await balanceOf(c.userId), 610, 'charged once');
    await assertBooksBalanced(c.userId);
    const again = await post(ENDPOINTS.createPortPackage, headers, nyRequest(c.userId, 390));
    assert.equal(again.json().id, twins[0]!.json().id, 'a retry answers the same package');
    const other = await post(
      ENDPOINTS.createPortPackage,
      headers,
      nyRequest(c.userId, 455, { time_period: 7 }),
    );
    assert.equal(other.statusCode, 409);
    assert.equal(other.json().errorCode, 'idempotencyKeyReused');
    assert.equal(await balanceOf(c.userId), 610);
    const list = ZPortPackages.parse(
      (await get(ENDPOINTS.listPortPackages, { id: c.userId }, c.headers)).json(),
    );
    assert.equal(list.packages.length, 1);
  });
});

describe('access, refund, reactivate', () => {
  test('whitelist and auth switch on own packages only; 20 IPs, 1 for unlimited', async () => {
    const c = await customer(100_000);
    const other = await customer(0);
    const pkg = await buy(c);
    let res = await post(ENDPOINTS.updatePortWhitelist, c.headers, {
      package_id: pkg.id,
      whitelist_ips: '203.0.113.5, 203.0.113.6',
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().access.type, 'whitelist');
    assert.deepEqual(res.json().access.whitelist_ips, ['203.0.113.5', '203.0.113.6']);
    assert.equal(
      (
        await post(ENDPOINTS.updatePortWhitelist, other.headers, {
          package_id: pkg.id,
          whitelist_ips: '203.0.113.7',
        })
      ).statusCode,
      404,
    );
    assert.equal(
      (await post(ENDPOINTS.updatePortWhitelist, c.headers, { package_id: pkg.id, whitelist_ips: '' }))
        .statusCode,
      400,
    );
    const many = Array.from({ length: 21 }, (_, i) => `203.0.113.${i + 1}`);
    assert.equal(
      (await post(ENDPOINTS.updatePortWhitelist, c.headers, { package_id: pkg.id, whitelist_ips: many }))
        .statusCode,
      400,
    );
    res = await get(ENDPOINTS.switchPortToLogin, { id: pkg.id }, c.headers);
    assert.equal(res.json().access.type, 'auth');
    assert.equal((await get(ENDPOINTS.switchPortToLogin, { id: pkg.id }, other.headers)).statusCode, 404);
    const unlimited = await buy(c, { traffic: { type: 'unlimit' } });
    assert.equal(unlimited.access.ports.length, 1);
    assert.equal(
      (
        await post(ENDPOINTS.updatePortWhitelist, c.headers, {
          package_id: unlimited.id,
          whitelist_ips: '203.0.113.5,203.0.113.6',
        })
      ).statusCode,
      400,
    );
  });

  test('refund: 10 MB or less and less than half the period, less the traffic used; credited once; replays refused', async () => {
    const c = await customer(1000);
    const pkg = await buy(c);
    const other = await customer(0);
    assert.equal(
      (await get(ENDPOINTS.refundPortPackage, { id: pkg.id }, other.headers)).statusCode,
      404,
      'not the owner',
    );
    await t.db.query('UPDATE port_packages SET download = $2 WHERE id = $1', [pkg.id, 10 * 1024 * 1024 + 1]);
    let res = await get(ENDPOINTS.refundPortPackage, { id: pkg.id }, c.headers);
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().message, 'error while refund port');
    await t.db.query('UPDATE port_packages SET download = $2 WHERE id = $1', [pkg.id, 10 * 1024 * 1024]);
    clock += 12 * 3600_000; // half of one day: too late
    assert.equal((await get(ENDPOINTS.refundPortPackage, { id: pkg.id }, c.headers)).statusCode, 409);
    clock -= 12 * 3600_000 - 1000;
    res = await get(ENDPOINTS.refundPortPackage, { id: pkg.id }, c.headers);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().status.type, 'refunded');
    assert.deepEqual(res.json().access.ports, []);
    assert.equal(
      (await get(ENDPOINTS.refundPortPackage, { id: pkg.id }, c.headers)).statusCode,
      409,
      'twice',
    );
    assert.equal(
      (await get(ENDPOINTS.reactivatePortPackage, { id: pkg.id }, c.headers)).statusCode,
      409,
      'refunded is final',
    );
    // $3.90 back less 10 MiB at $3.90 per Gb (3.81 cents, rounded up to 4).
    assert.equal(await balanceOf(c.userId), 1000 - 390 + 386);
    await assertBooksBalanced(c.userId);
  });

  test('reactivate a suspended package charges again when the balance covers it, with a fresh period', async () => {
    const c = await customer(800);
    const pkg = await buy(c);
    assert.equal(
      (await get(ENDPOINTS.reactivatePortPackage, { id: pkg.id }, c.headers)).statusCode,
      409,
      'active',
    );
    await t.db.query('UPDATE port_packages SET download = 1073741824 WHERE id = $1', [pkg.id]);
    // raw path: /healthz is outside the contract
    assert.equal(await t.app.inject({ method: 'GET', url: '/healthz' }).then((r) => r.statusCode), 200);
    const { ports: svc } = (await import('../../compose.ts')).compose({
      db: t.db,
      log: (await import('../../platform/logger.ts')).createLogger({ level: 'silent' }),
      now: () => clock,
    }).services;
    assert.equal(await svc.suspendDue(), 1);
    let list = ZPortPackages.parse(
      (await get(ENDPOINTS.listPortPackages, { id: c.userId }, c.headers)).json(),
    );
    assert.deepEqual(list.packages[0]?.status, { type: 'suspend', reason: 'volume' });
    assert.equal(list.packages[0]?.refundable, false);
    let res = await get(ENDPOINTS.reactivatePortPackage, { id: pkg.id }, c.headers);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().stats.download, 0);
    assert.equal(await balanceOf(c.userId), 20);
    await t.db.query("UPDATE port_packages SET status = 'suspend' WHERE id = $1", [pkg.id]);
    res = await get(ENDPOINTS.reactivatePortPackage, { id: pkg.id }, c.headers);
    assert.equal(res.statusCode, 402);
    assert.equal(await balanceOf(c.userId), 20);
    await assertBooksBalanced(c.userId);
    list = ZPortPackages.parse((await get(ENDPOINTS.listPortPackages, { id: c.userId }, c.headers)).json());
    assert.equal(list.packages[0]?.status.type, 'suspend');
  });

  test('concurrent create, refund and reactivate keep the books balanced: each credit and charge once', async () => {
    const c = await customer(5000);
    const pkg = await buy(c);
    const refunds = await Promise.all(
      Array.from({ length: 6 }, () => get(ENDPOINTS.refundPortPackage, { id: pkg.id }, c.headers)),
    );
    assert.equal(refunds.filter((r) => r.statusCode === 200).length, 1);
    const second = await buy(c);
    await t.db.query("UPDATE port_packages SET status = 'suspend' WHERE id = $1", [second.id]);
    const [reacts, creates] = await Promise.all([
      Promise.all(
        Array.from({ length: 6 }, () => get(ENDPOINTS.reactivatePortPackage, { id: second.id }, c.headers)),
      ),
      Promise.all(
        Array.from({ length: 4 }, () =>
          post(ENDPOINTS.createPortPackage, c.headers, nyRequest(c.userId, 390)),
        ),
      ),
    ]);
    assert.equal(
      reacts.filter((r) => r.statusCode === 200).length,
      1,
      reacts.map((r) => r.statusCode).join(),
    );
    const made = creates.filter((r) => r.statusCode === 200).length;
    // 5000 − 390 + 390 (refund) − 390 (second) − 390 (reactivation) − 390 × made
    assert.equal(await balanceOf(c.userId), 5000 - 390 * (2 + made));
    await assertBooksBalanced(c.userId);
    const all = [
      ...ZPortPackages.parse(
        (await get(ENDPOINTS.listPortPackages, { id: c.userId }, c.headers)).json(),
      ).packages.flatMap((p) => p.access.ports),
    ];
    const onA = await t.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM package_ports WHERE node_id = $1',
      [nodeA],
    );
    assert.ok(Number(onA[0]?.n) >= all.length);
  });
});

describe('GET /package/traffic/{id}[.csv]', () => {
  test("the package's hours as JSON and CSV, to its owner only", async () => {
    const c = await customer(1000);
    const pkg = await buy(c);
    await t.db.query(
      `INSERT INTO package_traffic_hourly (package_id, hour, reqs, fails, in_bytes, out_bytes)
       VALUES ($1, '2026-11-26T10:00:00Z', 5, 1, 100, 2000), ($1, '2026-11-26T11:00:00Z', 2, 0, 10, 300)`,
      [pkg.id],
    );
    const json = (await get(ENDPOINTS.getPortTraffic, { id: pkg.id }, c.headers)).json();
    assert.deepEqual(
      json.hours.map((h: { reqs: number }) => h.reqs),
      [5, 2],
    );
    const csv = await get(ENDPOINTS.downloadPortTrafficCsv, { id: pkg.id }, c.headers);
    assert.equal(csv.statusCode, 200);
    assert.equal(
      csv.body,
      'hour,requests,failed,bytes_in,bytes_out\n2026-11-26T10:00:00.000Z,5,1,100,2000\n2026-11-26T11:00:00.000Z,2,0,10,300\n',
    );
    const other = await customer(0);
    assert.equal((await get(ENDPOINTS.getPortTraffic, { id: pkg.id }, other.headers)).statusCode, 404);
  });
});

describe('GET /port/change/ip/{port}/{key}', () => {
  test('rotates a port by its key, at most every 5 minutes; wrong key 404', async () => {
    const c = await customer(1000);
    const pkg = await buy(c, { switch: { type: 'api' } });
    const port = pkg.access.ports[3]!;
    let res = await get(ENDPOINTS.rotatePortIp, { port, key: String(pkg.switch.api_key) });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { port, rotated: true });
    res = await get(ENDPOINTS.rotatePortIp, { port, key: String(pkg.switch.api_key) });
    assert.equal(res.statusCode, 429);
    assert.ok(res.json().retryAfterSeconds > 0);
    assert.equal((await get(ENDPOINTS.rotatePortIp, { port, key: 'wrong-key' })).statusCode, 404);
    const seq = await t.db.query<{ s: number }>(
      'SELECT rotate_seq AS s FROM package_ports WHERE package_id = $1 AND port = $2',
      [pkg.id, port],
    );
    assert.equal(seq[0]?.s, 1);
    clock += 5 * 60_000 + 10_000;
    assert.equal(
      (await get(ENDPOINTS.rotatePortIp, { port, key: String(pkg.switch.api_key) })).statusCode,
      200,
    );
  });
});

describe('GET /list/*', () => {
  test('countries, states and cities with online exits', async () => {
    const c = await customer(0);
    const full = (await get(ENDPOINTS.listPortCountries, undefined, c.headers)).json();
    assert.deepEqual(full.countries, [{ code: 'US', name: 'United States', count: 6 }]);
    const states = (await get(ENDPOINTS.listPortStates, undefined, c.headers, { country: 'us' })).json();
    assert.deepEqual(
      states.states.map((s: { name: string }) => s.name),
      ['California', 'New York'],
    );
    const cities = (
      await get(ENDPOINTS.listPortCities, undefined, c.headers, { country: 'US', state: 'California' })
    ).json();
    assert.deepEqual(cities.cities, [{ name: 'Los Angeles', count: 2 }]);
  });
});

describe('GET|PUT /pricing/ports (staff, market API)', () => {
  test('staff read and replace the table; /price follows at once; bad tables are a 400 naming the field', async () => {
    const staff = await t.staffAuth(newUserId('staff'));
    const c = await customer(0);
    assert.equal((await callRoute(t, ENDPOINTS.getPortPricing, { headers: c.headers })).statusCode, 403);
    const table = (await callRoute(t, ENDPOINTS.getPortPricing, { headers: staff })).json();
    assert.equal(table.rows.length, 18);
    const rows = table.rows.map((r: { kind: string; key: string; value: number }) =>
      r.kind === 'gb' && r.key === '1' ? { ...r, value: 500 } : r,
    );
    const put = (body: object) =>
      callRouteUnchecked(t, ENDPOINTS.replacePortPricing, { headers: staff, body });
    assert.equal((await put({ rows })).statusCode, 200);
    const b = nyRequest(c.userId, 0);
    const price = await post(ENDPOINTS.quotePortPrice, c.headers, {
      time_period: 1,
      traffic: b.traffic,
      geo: b.geo,
      access: b.access,
    });
    assert.equal(price.json().price, 650);
    const missing = await put({ rows: rows.slice(1) });
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().field, 'rows');
    const badPercent = await put({
      rows: rows.map((r: { kind: string }) => (r.kind === 'geo' ? { ...r, value: 0 } : r)),
    });
    assert.equal(badPercent.statusCode, 400);
    assert.equal((await put({ rows: table.rows })).statusCode, 200);
  });
});
