import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newUserId } from '@pm/db/testing';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import { createTestApp, TEST_AUDIENCE, type TestApp } from '../test/app.ts';
import { defineModule } from './module.ts';

/** A throwaway route limited to 4 calls a minute per caller. */
const limited = defineModule({
  name: 'limited',
  needs: [],
  services: () => ({}),
  routes: (app) => {
    app.get(
      '/limited',
      { config: { auth: 'user', rateLimit: { max: 4, timeWindow: 60_000 } } },
      async () => ({
        ok: true,
      }),
    );
    app.get(
      '/limited-too',
      { config: { auth: 'user', rateLimit: { max: 4, timeWindow: 60_000 } } },
      async () => ({
        ok: true,
      }),
    );
  },
});

/** Calls one of the throwaway limited routes on an API process. */
function callLimited(
  app: FastifyInstance,
  url: '/limited' | '/limited-too',
  headers: Record<string, string>,
) {
  // raw path: throwaway routes this test registers to count its limits, not operations of the contract
  return app.inject({ method: 'GET', url, headers });
}

describe('route rate limits are counted across API processes', () => {
  let t: TestApp;
  let second: FastifyInstance;

  before(async () => {
    t = await createTestApp('ratelimit_shared', { payments: false, modules: [limited] });
    // A second API process on the same database (its own composition, as another host's would be).
    second = await buildApp({
      db: t.db,
      oidc: {
        issuer: t.issuer.issuer,
        audience: TEST_AUDIENCE,
        algorithms: ['ES256'],
        permissionsClaim: 'permissions',
      },
      logLevel: 'silent',
      extraModules: [limited],
    });
    await second.ready();
  });
  after(async () => {
    await second?.close();
    await t?.close();
  });

  test('calls alternating between two processes hit one limit of 4', async () => {
    const alice = await t.auth(newUserId('alice'));
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) {
      const app = i % 2 ? second : t.app;
      codes.push((await callLimited(app, '/limited', alice)).statusCode);
    }
    assert.deepEqual(codes, [200, 200, 200, 200, 429, 429]);
    const refused = await callLimited(second, '/limited', alice);
    assert.equal(refused.json().error, 'RATE_LIMITED');
    assert.ok(Number(refused.headers['retry-after']) > 0);
  });

  test('20 parallel calls over both processes: exactly 4 pass', async () => {
    const bob = await t.auth(newUserId('bob'));
    const codes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        callLimited(i % 2 ? second : t.app, '/limited', bob).then((r) => r.statusCode),
      ),
    );
    assert.equal(codes.filter((c) => c === 200).length, 4, codes.join(','));
  });

  test('each route and each caller has its own budget', async () => {
    const carol = await t.auth(newUserId('carol'));
    for (let i = 0; i < 4; i++) {
      assert.equal((await callLimited(t.app, '/limited', carol)).statusCode, 200);
    }
    assert.equal((await callLimited(second, '/limited-too', carol)).statusCode, 200);
    const rows = await t.db.query<{ key: string }>(
      "SELECT key FROM rate_limits WHERE key LIKE '%carol%' ORDER BY key",
    );
    assert.deepEqual(
      rows.map((r) => r.key.replace(/carol.*/, 'carol')),
      ['market:GET /limited-too:carol', 'market:GET /limited:carol'].sort(),
    );
  });
});
