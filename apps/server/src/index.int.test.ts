import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { TEnvironment } from '@pm/contracts';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { type ServerConfig, start } from './index.ts';

const INDEX = '<!doctype html><html><head></head><body></body></html>';
const environment: TEnvironment = {
  name: 'local',
  origins: ['http://127.0.0.1:5173'],
  apiUrl: 'http://127.0.0.1:8080',
  portsApiUrl: 'http://127.0.0.1:8080',
  issuer: 'http://127.0.0.1:9000',
  clientId: 'web',
  audience: 'https://api.market.test',
  siteUrl: 'http://127.0.0.1:5173/',
  support: { email: 'support@example.test', messenger: '@support', messengerUrl: 'https://t.me/support' },
  termsVersion: 3,
};

describe('start()', () => {
  let db: TestDatabase;
  let root: string;
  before(async () => {
    db = await createTestDatabase('server_start');
    root = mkdtempSync(join(tmpdir(), 'pm-start-'));
    writeFileSync(join(root, 'index.html'), INDEX);
  });
  after(async () => {
    await db?.drop();
    rmSync(root, { recursive: true, force: true });
  });
  /** The API on a free loopback port, with an issuer nobody listens on. */
  const startOnLoopback = (extra: Partial<ServerConfig> = {}) =>
    start({
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
      ...extra,
    });

  test('listens on loopback with both listeners and closes cleanly', async () => {
    const server = await startOnLoopback({
      roles: ['http'],
      web: { host: '127.0.0.1', port: 0, root, environments: [environment] },
    });
    try {
      assert.match(server.apiUrl!, /^http:\/\/127\.0\.0\.1:\d+$/);
      // raw path: /readyz is outside the contract, on the real listener the entry point opens
      const health = await fetch(`${server.apiUrl}/readyz`, { signal: AbortSignal.timeout(5000) });
      assert.deepEqual(await health.json(), { status: 'ok' });
      const page = await fetch(`${server.webUrl}/my/history`, { signal: AbortSignal.timeout(5000) });
      assert.equal(await page.text(), INDEX);
      // The issuer is unreachable: the API says so with a 503, not a 401 or a 500.
      // raw path: the real listener the entry point opens, with a token that is not a JWT
      const me = await fetch(`${server.apiUrl}/accounts/my`, {
        headers: { authorization: 'Bearer a.b.c' },
        signal: AbortSignal.timeout(10_000),
      });
      assert.equal(me.status, 503);
    } finally {
      await server.close();
    }
    // raw path: /healthz is outside the contract; the closed listener must refuse it
    await assert.rejects(fetch(`${server.apiUrl}/healthz`, { signal: AbortSignal.timeout(2000) }));
  });

  test('serves the Ports API on its own listener: its routes there, not on the market API', async () => {
    const server = await startOnLoopback({ roles: ['http'], ports: { host: '127.0.0.1', port: 0 } });
    try {
      assert.match(server.portsUrl!, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(server.portsUrl, server.apiUrl);
      // raw path: the Ports API's real listener the entry point opens, not an injected app
      const rotate = await fetch(`${server.portsUrl}/port/change/ip/30000/nokey`, {
        signal: AbortSignal.timeout(5000),
      });
      assert.equal(rotate.status, 404);
      assert.equal(
        ((await rotate.json()) as { message: string }).message,
        'Port not found',
        'the ports route answered',
      );
      // raw path: a Ports API path on the market listener on purpose: it must not be there
      const onMarket = await fetch(`${server.apiUrl}/port/change/ip/30000/nokey`, {
        signal: AbortSignal.timeout(5000),
      });
      assert.equal(((await onMarket.json()) as { message: string }).message, 'Not found');
    } finally {
      await server.close();
    }
  });

  test('close does not wait for an open socket that never sent a request', async () => {
    const server = await startOnLoopback({ roles: ['http'] });
    // Browsers pre-open connections like this one; shutdown must not wait for their headers timeout.
    const url = new URL(server.apiUrl!);
    const socket = connect(Number(url.port), url.hostname);
    await once(socket, 'connect');
    const closed = once(socket, 'close');
    const startedAt = Date.now();
    await server.close();
    await closed;
    assert.ok(Date.now() - startedAt < 3000, `close took ${Date.now() - startedAt} ms`);
  });

  test('the worker role listens nowhere and schedules the cron jobs', async () => {
    const server = await startOnLoopback({ roles: ['worker'] });
    try {
      assert.equal(server.apiUrl, undefined);
      const schedules = await db.query<{ name: string }>('SELECT name FROM pgboss.schedule ORDER BY name');
      assert.deepEqual(
        schedules.map((s) => s.name),
        // Cron schedules only: payments.watch runs every PAYMENTS_WATCH_INTERVAL_S (an everySeconds schedule).
        [
          'checks.blacklists',
          'checks.recoverScoreChecks',
          'health.sweepRateLimits',
          'leases.autoRefund',
          'leases.expire',
          'ports.suspendDue',
          'webhooks.scan',
        ],
      );
    } finally {
      await server.close();
    }
  });

  test('both roles by default: the API answers while workers run', async () => {
    const server = await startOnLoopback();
    try {
      // raw path: /healthz is outside the contract, on the real listener the entry point opens
      const health = await fetch(`${server.apiUrl}/healthz`, { signal: AbortSignal.timeout(5000) });
      assert.equal(health.status, 200);
    } finally {
      await server.close();
    }
  });
});
