import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ENDPOINTS, ZAuthPortCreateResponse } from '@pm/contracts';
import { buildAgent, buildNode, newUserId } from '@pm/db/testing';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { callRouteUnchecked } from '../../test/route.ts';
import { createLeaseService } from '../leases/leases.service.ts';

let t: TestApp;
let leaseId: string;
let alice: string;

before(async () => {
  t = await createTestApp('authport_routes');
  const node = await buildNode(t.db, { publicIp: '203.0.113.7', authPortMin: 40000, authPortMax: 40100 });
  const agent = await buildAgent(t.db, { nodeId: node.id });
  alice = newUserId('alice');
  leaseId = (
    await createLeaseService({ db: t.db.db }).createLease({ userId: alice, agentId: agent.id, exc: false })
  ).id;
});
after(async () => {
  await t?.close();
});

/** The whitelist as given: the tests also send bodies the schema refuses. */
const post = async (body: unknown, headers?: Record<string, string>, id = leaseId) =>
  callRouteUnchecked(t, ENDPOINTS.createAuthPort, {
    params: { id },
    headers: headers ?? (await t.auth(alice)),
    payload: JSON.stringify(body),
  });

test('creates the no-auth port with the whitelist sent as a JSON string', async () => {
  const res = await post('127.0.0.3, 10.0.0.0/24');
  assert.equal(res.statusCode, 200, res.body);
  const body = ZAuthPortCreateResponse.parse(res.json());
  assert.equal(body.status, 'AUTHPORT_CREATED');
  assert.deepEqual(body.authPort, { node: '203.0.113.7', port: 40000, whitelist: '127.0.0.3,10.0.0.0/24' });
});

test('accepts { whitelist } and keeps the same port', async () => {
  const res = await post({ whitelist: '127.0.0.4' });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json().authPort, { node: '203.0.113.7', port: 40000, whitelist: '127.0.0.4' });
});

test('a bad entry is a 400 naming it; a body of the wrong type is a 400', async () => {
  const res = await post('127.0.0.3,300.1.1.1');
  assert.equal(res.statusCode, 400);
  assert.equal(res.json().error, 'VALIDATION_FAILED');
  assert.equal(res.json().field, 'whitelist');
  assert.match(res.json().message, /300\.1\.1\.1/);
  const wrongType = await post({ whitelist: 5 });
  assert.equal(wrongType.statusCode, 400);
  assert.equal(wrongType.json().error, 'VALIDATION_FAILED');
  // Neither a string nor { whitelist: string | string[] }: the union as a whole is refused.
  assert.equal(wrongType.json().field, 'body');
});

test('a range wider than /24 is a 400 naming the whitelist field (0.0.0.0/0 would be an open proxy)', async () => {
  for (const wide of ['0.0.0.0/0', '10.1.0.0/16', '198.51.100.0/23']) {
    const res = await post(`127.0.0.3,${wide}`);
    assert.equal(res.statusCode, 400, wide);
    assert.equal(res.json().error, 'VALIDATION_FAILED');
    assert.equal(res.json().field, 'whitelist');
    assert.match(res.json().message, /\/24/, wide);
    assert.ok(res.json().message.includes(wide), wide);
  }
  assert.equal((await post({ whitelist: ['198.51.100.0/24', '203.0.113.9/32'] })).statusCode, 200);
});

test("another user's lease is 404; staff may; no token is 401", async () => {
  assert.equal((await post('1.1.1.1', await t.auth(newUserId('mallory')))).statusCode, 404);
  assert.equal((await post('1.1.1.1', await t.staffAuth(newUserId('staff')))).statusCode, 200);
  assert.equal((await post('1.1.1.1', undefined, 'zzzz-0000')).statusCode, 404);
  const anonymous = await callRouteUnchecked(t, ENDPOINTS.createAuthPort, {
    params: { id: leaseId },
    payload: '"1.1.1.1"',
  });
  assert.equal(anonymous.statusCode, 401);
});

test('the route is in the OpenAPI document with its body and response', async () => {
  // raw path: the OpenAPI document is built from the contract, not an operation of it
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const op = doc.paths['/authport/create/{id}'].post;
  assert.ok(op.requestBody.content['application/json'].schema);
  assert.ok(op.responses['200'].content['application/json'].schema.properties.authPort);
  assert.ok(op.responses['429']);
});
