/**
 * A port package's refused sign-ins (wrong login or password, `auth_fails`) are their own figure in
 * the Ports API's package stats and hourly traffic, never among `errors` or `fails`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ENDPOINTS, type EndpointRequest, ZPortPackages, ZPortTrafficResponse } from '@pm/contracts';
import { buildAccount, buildAgent, buildNode, buildSparePorts, newUserId } from '@pm/db/testing';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { callRoute } from '../../test/route.ts';

let t: TestApp;

before(async () => {
  t = await createTestApp('ports_auth_fails', { ports: true, payments: false });
});
after(async () => {
  await t?.close();
});

test('the package list and its hourly traffic carry auth_fails apart from errors', async () => {
  const node = await buildNode(t.db, { publicIp: '198.51.100.9' });
  await buildSparePorts(t.db, node.id, { count: 200 });
  await buildAgent(t.db, { nodeId: node.id, cc: 'US', reg: 'New York', city: 'New York', conn: 'wifi' });
  const userId = newUserId();
  await buildAccount(t.db, { userId, balanceC: 100_000 });
  const headers = await t.auth(userId);
  const request: EndpointRequest<typeof ENDPOINTS.quotePortPrice>['body'] = {
    time_period: 1,
    traffic: { type: 'limit', amount: 1 },
    geo: { country: 'US', state: 'New York', city: 'New York', connection_type: 'both' },
    access: { type: 'auth', port_amount: 100 },
  };
  const quote = await callRoute(t, ENDPOINTS.quotePortPrice, { headers, body: request });
  assert.equal(quote.statusCode, 200, quote.body);
  const created = await callRoute(t, ENDPOINTS.createPortPackage, {
    headers,
    body: { ...request, user_id: userId, price: quote.ok().price, switch: { type: 'timer', timer: 5 } },
  });
  assert.ok(created.statusCode < 300, created.body);
  const [{ id }] = await t.db.query<{ id: string }>('SELECT id FROM port_packages WHERE user_id = $1', [
    userId,
  ]);
  await t.db.query('UPDATE port_packages SET requests = 8, errors = 1, auth_fails = 40 WHERE id = $1', [id]);
  const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
  await t.db.query(
    `INSERT INTO package_traffic_hourly (package_id, hour, reqs, fails, auth_fails, in_bytes, out_bytes)
     VALUES ($1, $2, 8, 1, 40, 0, 0)`,
    [id, hour],
  );

  const list = await callRoute(t, ENDPOINTS.listPortPackages, { params: { id: userId }, headers });
  assert.equal(list.statusCode, 200, list.body);
  const pkg = ZPortPackages.parse(list.json()).packages.find((p) => p.id === id)!;
  assert.deepEqual(pkg.stats, { requests: 8, errors: 1, auth_fails: 40, upload: 0, download: 0 });

  const traffic = await callRoute(t, ENDPOINTS.getPortTraffic, { params: { id }, headers });
  assert.equal(traffic.statusCode, 200, traffic.body);
  assert.deepEqual(ZPortTrafficResponse.parse(traffic.json()).hours, [
    { hour: hour.toISOString(), reqs: 8, fails: 1, authFails: 40, inBytes: 0, outBytes: 0 },
  ]);
});
