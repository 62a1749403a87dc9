import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AppError } from '@pm/contracts';
import { ZAuthPortCreateResponse } from '@pm/contracts/leases';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerErrorHandling } from '../../platform/errors.ts';
import { createLeaseService } from '../leases/lease.service.ts';
import { buildAgent, buildNode } from '../leases/lease.testkit.ts';
import { register } from './authport.routes.ts';
import { createAuthPortService } from './authport.service.ts';

let db: TestDatabase;
let app: FastifyInstance;
let leaseId: string;

before(async () => {
  db = await createTestDatabase('authport_routes');
  const leases = createLeaseService({ db: db.db });
  app = Fastify();
  registerErrorHandling(app);
  register(app, {
    authport: createAuthPortService({ leases }),
    getCaller(request) {
      const user = request.headers['x-test-user'];
      if (typeof user !== 'string') throw new AppError('UNAUTHENTICATED');
      return { userId: user, isStaff: user === 'staff' };
    },
  });
  await app.ready();
  const node = await buildNode(db.db, { publicIp: '203.0.113.7', authPortMin: 40000, authPortMax: 40100 });
  const agent = await buildAgent(db.db, { nodeId: node.id });
  leaseId = (await leases.createLease({ userId: 'alice', agentId: agent.id, exc: false })).id;
});
after(async () => {
  await app.close();
  await db.drop();
});

const post = (body: unknown, user = 'alice', id = leaseId) =>
  app.inject({
    method: 'POST',
    url: `/authport/create/${id}`,
    headers: { 'x-test-user': user, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });

test('creates the no-auth port with the whitelist sent as a JSON string', async () => {
  const res = await post('127.0.0.3, 10.0.0.0/8');
  assert.equal(res.statusCode, 200, res.body);
  const body = ZAuthPortCreateResponse.parse(res.json());
  assert.equal(body.status, 'AUTHPORT_CREATED');
  assert.deepEqual(body.authPort, { node: '203.0.113.7', port: 40000, whitelist: '127.0.0.3,10.0.0.0/8' });
});

test('accepts { whitelist } and keeps the same port', async () => {
  const res = await post({ whitelist: '127.0.0.4' });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json().authPort, { node: '203.0.113.7', port: 40000, whitelist: '127.0.0.4' });
});

test('a bad entry is a 400 naming it', async () => {
  const res = await post('127.0.0.3,300.1.1.1');
  assert.equal(res.statusCode, 400);
  assert.equal(res.json().error, 'VALIDATION_FAILED');
  assert.equal(res.json().field, 'whitelist');
  assert.match(res.json().message, /300\.1\.1\.1/);
  const wrongType = await post({ whitelist: 5 });
  assert.equal(wrongType.statusCode, 400);
  assert.equal(wrongType.json().error, 'VALIDATION_FAILED');
});

test("another user's lease is 404; staff may; no caller is 401", async () => {
  assert.equal((await post('1.1.1.1', 'mallory')).statusCode, 404);
  assert.equal((await post('1.1.1.1', 'staff')).statusCode, 200);
  assert.equal((await post('1.1.1.1', 'alice', 'zzzz-0000')).statusCode, 404);
  const anonymous = await app.inject({
    method: 'POST',
    url: `/authport/create/${leaseId}`,
    headers: { 'content-type': 'application/json' },
    payload: '"1.1.1.1"',
  });
  assert.equal(anonymous.statusCode, 401);
});
