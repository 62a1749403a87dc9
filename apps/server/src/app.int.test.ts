import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS } from '@pm/contracts';
import type { DbHandle } from '@pm/db';
import { newUserId } from '@pm/db/testing';
import { buildApp } from './app.ts';
import { compose } from './compose.ts';
import { createLogger } from './platform/logger.ts';
import { defineModule, type Platform } from './platform/module.ts';
import { createTestApp, METRICS_AUTH, TEST_AUDIENCE, TEST_ORIGIN, type TestApp } from './test/app.ts';
import { callRoute, callRouteUnchecked } from './test/route.ts';

let t: TestApp;

before(async () => {
  t = await createTestApp('app', {
    modules: [
      defineModule({
        name: 'boom',
        needs: [],
        services: () => ({}),
        routes: (app) => {
          app.get('/boom', { config: { auth: 'public' } }, async () => {
            throw new Error('secret internals: password=hunter2');
          });
          app.get('/boom-db', async () => t.db.query('SELECT * FROM no_such_table'));
          app.get(
            '/limited',
            { config: { auth: 'user', rateLimit: { max: 2, timeWindow: 60_000 } } },
            async () => ({
              ok: true,
            }),
          );
        },
      }),
    ],
  });
});
after(async () => {
  await t?.close();
});

describe('operations endpoints', () => {
  test('healthz and readyz answer ok without a token', async () => {
    for (const url of ['/healthz', '/readyz']) {
      // raw path: /healthz and /readyz are outside the contract
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { status: 'ok' });
    }
  });

  test('readyz is 503 when the database does not answer', async () => {
    const broken = {
      ...t.db,
      query: () => Promise.reject(new Error('connection refused')),
    } as unknown as DbHandle;
    const app = await buildApp({
      db: broken,
      oidc: {
        issuer: 'http://127.0.0.1:1',
        audience: 'x',
        algorithms: ['ES256'],
        permissionsClaim: 'permissions',
      },
      logLevel: 'silent',
    });
    try {
      // raw path: /readyz is outside the contract
      const res = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().error, 'UNAVAILABLE');
      assert.doesNotMatch(res.body, /connection refused/);
    } finally {
      await app.close();
    }
  });

  test('metrics count requests by route template and status, with process metrics', async () => {
    const headers = await t.auth(newUserId());
    await callRoute(t, ENDPOINTS.getMyAccount, { headers });
    await callRoute(t, ENDPOINTS.getAccount, { params: { id: 'someone' }, headers });
    // raw path: /metrics is the Prometheus scrape, outside the contract
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: METRICS_AUTH });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /text\/plain/);
    assert.match(res.body, /http_requests_total\{method="GET",route="\/accounts\/my",status_code="404"\} 1/);
    assert.match(res.body, /http_requests_total\{method="GET",route="\/accounts\/:id",status_code="403"\} 1/);
    assert.match(
      res.body,
      /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/healthz"|http_request_duration_seconds_count/,
    );
    assert.match(res.body, /process_cpu_user_seconds_total/);
    assert.doesNotMatch(res.body, /route="\/accounts\/someone"/);
  });

  test('openapi.json is generated from the zod schemas', async () => {
    // raw path: the OpenAPI document is served beside the contract, not as an operation of it
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.match(doc.openapi, /^3\./);
    const patch = doc.paths['/accounts/{id}'].patch;
    assert.ok(patch.requestBody.content['application/json'].schema.properties.balanceDeltaC);
    const query = doc.paths['/txrecords'].get.parameters.map((p: { name: string }) => p.name);
    assert.deepEqual(query.sort(), ['end', 'limit', 'offset', 'start', 'uid']);
    assert.ok(
      doc.paths['/accounts/my'].get.responses['200'].content['application/json'].schema.properties.balanceC,
    );
    assert.equal(doc.paths['/metrics'], undefined);
    assert.deepEqual(doc.paths['/healthz'].get.security, []);
    assert.deepEqual(doc.security, [{ bearer: [] }]);
  });
});

describe('errors and request ids', () => {
  test('every answer carries x-request-id; a well-formed incoming one is kept', async () => {
    // raw path: /healthz is outside the contract
    const kept = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'trace-abc.123' },
    });
    assert.equal(kept.headers['x-request-id'], 'trace-abc.123');
    // raw path: /healthz is outside the contract
    const replaced = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'bad id\u0001' },
    });
    assert.match(replaced.headers['x-request-id'] as string, /^[0-9a-f-]{36}$/);
    const err = await callRoute(t, ENDPOINTS.getMyAccount);
    assert.equal(err.json().requestId, err.headers['x-request-id']);
  });

  test('log lines carry the request id and never the bearer token', async () => {
    const lines: string[] = [];
    const app = await buildApp({
      db: t.db,
      oidc: {
        issuer: t.issuer.issuer,
        audience: TEST_AUDIENCE,
        algorithms: ['ES256'],
        permissionsClaim: 'permissions',
      },
      logLevel: 'info',
      logStream: { write: (line) => void lines.push(line) },
    });
    try {
      const token = (await t.auth(newUserId())).authorization!;
      const res = await callRouteUnchecked(app, ENDPOINTS.listTxRecords, {
        query: { limit: 0 },
        headers: { authorization: token, 'x-request-id': 'log-trace-1' },
      });
      assert.equal(res.statusCode, 400);
      const mine = lines.map((l) => JSON.parse(l)).filter((l) => l.reqId === 'log-trace-1');
      assert.ok(mine.length >= 2, `expected request and response lines, got ${mine.length}`);
      assert.ok(mine.some((l) => l.field === 'limit'));
      assert.ok(!lines.join('\n').includes(token.slice(7)), 'token leaked into the logs');
    } finally {
      await app.close();
    }
  });

  test('unknown errors are a masked 500 without stack or details', async () => {
    for (const url of ['/boom', '/boom-db']) {
      // raw path: routes this test registers to throw, not operations of the contract
      const res = await t.app.inject({ method: 'GET', url, headers: await t.auth(newUserId()) });
      assert.equal(res.statusCode, 500);
      const body = res.json();
      assert.deepEqual(
        { error: body.error, message: body.message },
        { error: 'INTERNAL', message: 'Something went wrong' },
      );
      assert.equal(body.requestId, res.headers['x-request-id']);
      assert.doesNotMatch(res.body, /hunter2|no_such_table|stack|at /);
    }
  });

  test('unknown routes are a 404 with the error body, without needing a token', async () => {
    // raw path: a route that does not exist, on purpose
    const res = await t.app.inject({ method: 'GET', url: '/nope' });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error, 'NOT_FOUND');
  });

  test('unsupported content types and oversized bodies are refused with a body error', async () => {
    const headers = await t.staffAuth(newUserId('staff'));
    const send = (contentType: string, payload: string) =>
      callRouteUnchecked(t, ENDPOINTS.updateAccount, {
        params: { id: 'x' },
        headers: { ...headers, 'content-type': contentType },
        payload,
      });
    const cases: [string, string, number][] = [
      ['application/xml', '<a/>', 415],
      ['text/plain', 'balanceDeltaC=5', 400],
      ['application/json', JSON.stringify({ memo: 'x'.repeat(2 * 1024 * 1024) }), 413],
    ];
    for (const [contentType, payload, status] of cases) {
      const res = await send(contentType, payload);
      assert.equal(res.statusCode, status, `${contentType}: ${res.body}`);
      assert.equal(res.json().error, 'VALIDATION_FAILED');
      assert.equal(res.json().field, 'body');
    }
  });
});

describe('CORS', () => {
  test('preflight from an allowed origin allows the Authorization header; other origins get no grant', async () => {
    // raw path: a CORS preflight (OPTIONS), which the contract does not declare
    const pre = await t.app.inject({
      method: 'OPTIONS',
      url: '/accounts/my',
      headers: {
        origin: TEST_ORIGIN,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    assert.equal(pre.statusCode, 204);
    assert.equal(pre.headers['access-control-allow-origin'], TEST_ORIGIN);
    assert.match(String(pre.headers['access-control-allow-headers']), /Authorization/i);
    // raw path: /healthz is outside the contract
    const res = await t.app.inject({ method: 'GET', url: '/healthz', headers: { origin: TEST_ORIGIN } });
    assert.equal(res.headers['access-control-allow-origin'], TEST_ORIGIN);
    assert.match(String(res.headers['access-control-expose-headers']), /X-Request-Id/i);
    // raw path: /healthz is outside the contract
    const evil = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(evil.headers['access-control-allow-origin'], undefined);
  });
});

describe('modules', () => {
  test('a route with config.rateLimit answers 429 past its limit, counted per user', async () => {
    const alice = await t.auth(newUserId('alice'));
    const codes = [];
    // raw path: a throwaway route this test registers to count its limit
    for (let i = 0; i < 3; i++)
      codes.push((await t.app.inject({ method: 'GET', url: '/limited', headers: alice })).statusCode);
    assert.deepEqual(codes, [200, 200, 429]);
    // raw path: a throwaway route this test registers to count its limit
    const refused = await t.app.inject({ method: 'GET', url: '/limited', headers: alice });
    assert.equal(refused.json().error, 'RATE_LIMITED');
    assert.equal(refused.json().requestId, refused.headers['x-request-id']);
    const bob = await t.auth(newUserId('bob'));
    // raw path: a throwaway route this test registers to count its limit
    assert.equal((await t.app.inject({ method: 'GET', url: '/limited', headers: bob })).statusCode, 200);
  });

  test('a module that needs a service no earlier module provides is refused at build time', () => {
    const needy = defineModule({
      name: 'needy',
      needs: ['missing'],
      services: (_platform: Platform, _needs: { missing: unknown }) => ({}),
    });
    assert.throws(
      () => compose({ db: t.db, log: createLogger({ level: 'silent' }), extraModules: [needy] }),
      /module needy needs missing, which no module before it provides/,
    );
  });
});
