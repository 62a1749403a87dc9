import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ENDPOINTS } from '@pm/contracts';
import { buildAccount, buildAgent, buildLease, buildNode } from '@pm/db/testing';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { callRoute } from '../../test/route.ts';

let t: TestApp;

before(async () => {
  t = await createTestApp('leases_uptime', { payments: false });
});
after(async () => {
  await t?.close();
});

// GET /agents/{id} hides static agents (404), so the lease must carry its agent's uptime itself.
test("a lease carries its agent's uptime (onlineSince), static or not, and null while offline", async () => {
  const node = await buildNode(t.db);
  const staticAgent = await buildAgent(t.db, { nodeId: node.id, isStatic: true, ip: '198.51.100.7' });
  const offline = await buildAgent(t.db, { nodeId: node.id, online: false, ip: '198.51.100.8' });
  const since = new Date(Date.now() - 5 * 3_600_000);
  await t.db.query(
    'INSERT INTO agent_presence (agent_id, node_id, started_at, ended_at) VALUES ($1, $2, $3, NULL), ($1, $2, $4, $3)',
    [staticAgent.id, node.id, since, new Date(Date.now() - 9 * 3_600_000)],
  );
  const account = await buildAccount(t.db);
  await buildLease(t.db, staticAgent.id, { userId: account.userId, static: true, exc: true });
  await buildLease(t.db, offline.id, { userId: account.userId });

  const res = await callRoute(t, ENDPOINTS.listLeases, { headers: await t.auth(account.userId) });
  const { leases } = res.ok();
  const byAgent = new Map(leases.map((l) => [l.agentId, l]));
  assert.equal(byAgent.get(staticAgent.id)?.currentInfo.onlineSince, since.toISOString());
  assert.equal(byAgent.get(offline.id)?.currentInfo.onlineSince, null);

  const agentRes = await callRoute(t, ENDPOINTS.getAgent, {
    params: { id: staticAgent.id },
    headers: await t.auth(account.userId),
  });
  assert.equal(
    agentRes.statusCode,
    404,
    "the shop's agent route hides static agents: the lease is the source",
  );
});
