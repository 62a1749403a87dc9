import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ENDPOINTS } from '@pm/contracts';
import { buildAgent, buildNode, newUserId } from '@pm/db/testing';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { callRoute } from '../../test/route.ts';

let t: TestApp;
let headers: Record<string, string>;
let nodeId: string;
let offsetMs = 0;

before(async () => {
  t = await createTestApp('checks_speed', { payments: false, now: () => Date.now() + offsetMs });
  headers = await t.auth(newUserId());
  nodeId = (await buildNode(t.db)).id;
});
after(() => t.close());

const speed = (id: string, request = false) =>
  callRoute(t, ENDPOINTS.getSpeedCheck, {
    params: { id },
    query: request ? { request: 'true' } : {},
    headers,
  });

test('a speed check is a job: requested, then what the node writes; one per agent per 6 minutes', async () => {
  offsetMs = 0;
  const agent = await buildAgent(t.db, { nodeId, online: true });
  const none = await speed(agent.id);
  assert.equal(none.statusCode, 404);
  assert.equal(none.json().errorCode, 'notFound');

  const asked = await speed(agent.id, true);
  assert.equal(asked.statusCode, 200, asked.body);
  assert.equal(asked.json().status, 'requested');
  // Asking again while it runs answers the running one, not a second job.
  assert.equal((await speed(agent.id, true)).json().requestedAt, asked.json().requestedAt);
  const jobs = await t.db.query<{ n: string }>('SELECT count(*) AS n FROM speed_checks WHERE agent_id = $1', [
    agent.id,
  ]);
  assert.equal(Number(jobs[0]!.n), 1);

  // The node finishes it (apps/gateway/src/presence/speed-requests.ts).
  await t.db.query(
    `UPDATE speed_checks SET status = 'done', bps = 24000000, done_at = now() WHERE agent_id = $1`,
    [agent.id],
  );
  const done = (await speed(agent.id)).json();
  assert.equal(done.status, 'done');
  assert.equal(done.bps, 24_000_000);
  assert.equal(Date.parse(done.retestAt) - Date.parse(done.requestedAt), 6 * 60_000);

  const early = await speed(agent.id, true);
  assert.equal(early.statusCode, 409);
  assert.equal(early.json().errorCode, 'rejected');
  assert.equal(early.json().retestAt, done.retestAt);

  offsetMs = 6 * 60_000 + 1000;
  const later = await speed(agent.id, true);
  assert.equal(later.statusCode, 200, later.body);
  assert.equal(later.json().status, 'requested');
});

test('concurrent requests for one agent start one job', async () => {
  offsetMs = 0;
  const agent = await buildAgent(t.db, { nodeId, online: true });
  const answers = await Promise.all(Array.from({ length: 6 }, () => speed(agent.id, true)));
  assert.ok(answers.every((a) => a.statusCode === 200));
  const jobs = await t.db.query<{ n: string }>('SELECT count(*) AS n FROM speed_checks WHERE agent_id = $1', [
    agent.id,
  ]);
  assert.equal(Number(jobs[0]!.n), 1);
});

test('a job no node finished in time counts as failed; unknown and static agents are 404', async () => {
  offsetMs = 0;
  const agent = await buildAgent(t.db, { nodeId, online: true });
  assert.equal((await speed(agent.id, true)).statusCode, 200);
  offsetMs = 120_000;
  const stuck = (await speed(agent.id)).json();
  assert.equal(stuck.status, 'failed');
  assert.equal(stuck.bps, null);
  assert.equal((await speed('ag-none', true)).statusCode, 404);
  const fixed = await buildAgent(t.db, { nodeId, online: true, isStatic: true });
  assert.equal((await speed(fixed.id, true)).statusCode, 404);
});
