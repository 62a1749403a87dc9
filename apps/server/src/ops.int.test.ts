import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { type ServerHandle, start } from './index.ts';
import { METRICS_AUTH, TEST_METRICS_TOKEN } from './test/app.ts';

describe('a worker-only process (--role=worker)', () => {
  let db: TestDatabase;
  let worker: ServerHandle;
  before(async () => {
    db = await createTestDatabase('server_ops');
    worker = await start({
      roles: ['worker'],
      host: '127.0.0.1',
      port: 0,
      db,
      oidc: {
        issuer: 'http://127.0.0.1:1',
        audience: 'a',
        algorithms: ['ES256'],
        permissionsClaim: 'permissions',
      },
      corsOrigins: [],
      logLevel: 'silent',
      settings: { metricsToken: TEST_METRICS_TOKEN },
    });
  });
  after(async () => {
    await worker?.close();
    await db?.drop();
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${worker.opsUrl}${path}`, { headers, signal: AbortSignal.timeout(5000) });

  test('serves /healthz and /readyz on its own listener, and no API', async () => {
    assert.equal(worker.apiUrl, undefined);
    assert.match(String(worker.opsUrl), /^http:\/\/127\.0\.0\.1:\d+$/);
    for (const path of ['/healthz', '/readyz']) {
      const res = await get(path);
      assert.equal(res.status, 200, path);
      assert.deepEqual(await res.json(), { status: 'ok' });
    }
    assert.equal((await get('/agents?cc=US')).status, 404);
    assert.equal((await get('/openapi.json')).status, 404);
  });

  test('/metrics needs METRICS_TOKEN as on the API, then shows the process and its requests', async () => {
    const none = await get('/metrics');
    assert.equal(none.status, 401);
    assert.equal(((await none.json()) as { error: string }).error, 'UNAUTHENTICATED');
    assert.equal((await get('/metrics', { authorization: 'Bearer wrong' })).status, 403);
    const res = await get('/metrics', METRICS_AUTH);
    assert.equal(res.status, 200);
    const body = await res.text();
    assert.match(body, /process_cpu_seconds_total/);
    assert.match(body, /http_requests_total\{method="GET",route="\/healthz",status_code="200"\}/);
  });
});
