/**
 * Refused sign-ins (wrong user name or password, `auth_fails`) are their own figure in a lease's
 * stats and hourly traffic: a customer who types the password wrong 50 times sees 50 failed
 * sign-ins and the same Failed % as before, so nobody reads a typo as the proxy failing.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ENDPOINTS } from '@pm/contracts';
import { buildAgent, buildLease, buildNode, buildTrafficHour, newUserId } from '@pm/db/testing';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { callRoute } from '../../test/route.ts';

let t: TestApp;

before(async () => {
  t = await createTestApp('lease_auth_fails', { payments: false });
});
after(async () => {
  await t?.close();
});

test('GET /leases and /leases/{id}/traffic carry authFails apart from failPct and fails', async () => {
  const userId = newUserId();
  const headers = await t.auth(userId);
  const node = await buildNode(t.db);
  const agent = await buildAgent(t.db, { nodeId: node.id });
  const lease = await buildLease(t.db, agent.id, { userId });
  await t.db.query('UPDATE leases SET reqs = 10, fails = 2, auth_fails = 50 WHERE id = $1', [lease.id]);
  const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
  await buildTrafficHour(t.db, lease.id, { hour, reqs: 10, fails: 2 });
  await t.db.query('UPDATE lease_traffic_hourly SET auth_fails = 50 WHERE lease_id = $1', [lease.id]);

  const [shown] = (await callRoute(t, ENDPOINTS.listLeases, { headers })).ok().leases;
  assert.equal(shown!.stats.authFails, 50);
  assert.equal(shown!.stats.failPct, 20, 'wrong passwords never move Failed %');
  assert.equal(shown!.stats.reqs, 10);

  const traffic = await callRoute(t, ENDPOINTS.getLeaseTraffic, { params: { id: lease.id }, headers });
  assert.deepEqual(traffic.ok().hours, [
    { hour: hour.toISOString(), reqs: 10, fails: 2, authFails: 50, inBytes: 0, outBytes: 0 },
  ]);
});
