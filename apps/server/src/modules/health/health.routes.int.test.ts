import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newUserId } from '@pm/db/testing';
import { createTestApp, METRICS_AUTH, type TestApp } from '../../test/app.ts';

let t: TestApp;
let off: TestApp;

before(async () => {
  t = await createTestApp('health_metrics', { payments: false });
  off = await createTestApp('health_metrics_off', { payments: false, settings: { metricsToken: undefined } });
});
after(async () => {
  await t?.close();
  await off?.close();
});

// raw path: /metrics is the operator's scrape endpoint, outside the endpoint contract
const metrics = (app: TestApp, headers: Record<string, string> = {}) =>
  app.app.inject({ method: 'GET', url: '/metrics', headers });

test('/metrics is not public: 401 without a bearer token, 403 with another token, 200 with METRICS_TOKEN', async () => {
  const none = await metrics(t);
  assert.equal(none.statusCode, 401);
  assert.doesNotMatch(none.body, /http_requests_total/);
  assert.equal((await metrics(t, { authorization: 'Bearer not-it' })).statusCode, 403);
  assert.equal((await metrics(t, { authorization: 'Basic dGVzdA==' })).statusCode, 401);
  // A customer's access token is no metrics token.
  assert.equal((await metrics(t, await t.auth(newUserId()))).statusCode, 403);
  const ok = await metrics(t, METRICS_AUTH);
  assert.equal(ok.statusCode, 200);
  assert.match(ok.body, /process_cpu_user_seconds_total/);
  assert.equal(
    // raw path: /healthz is a liveness probe, outside the endpoint contract
    (await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode,
    200,
    'health stays public',
  );
});

test('without METRICS_TOKEN /metrics answers 403 to everyone, naming the setting', async () => {
  const res = await metrics(off, METRICS_AUTH);
  assert.equal(res.statusCode, 403);
  assert.match(res.body, /METRICS_TOKEN/);
  assert.equal((await metrics(off)).statusCode, 401);
});
