import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS, ZErrorBody } from '@pm/contracts';
import { buildAccount, newUserId } from '@pm/db/testing';
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createTestApp, type TestApp } from '../test/app.ts';
import { callRouteUnchecked } from '../test/route.ts';
import { registerErrorHandling } from './errors.ts';
import { registerInputRules } from './input.ts';

let t: TestApp;
let staff: Record<string, string>;
let customer: Record<string, string>;
let customerId: string;

before(async () => {
  t = await createTestApp('input_rules');
  staff = await t.staffAuth(newUserId('staff'));
  customerId = (await buildAccount(t.db, { balanceC: 1000 })).userId;
  customer = await t.auth(customerId);
});
after(async () => {
  await t?.close();
});

/** Balances and ledger rows, to show a refused request changed nothing. */
const snapshot = async () =>
  JSON.stringify([
    await t.db.query('SELECT user_id, balance_c, permissions FROM accounts ORDER BY user_id'),
    await t.db.query('SELECT * FROM txrecords ORDER BY id'),
  ]);

type Inject = InjectOptions & { url: string };

/** Sends the request and checks it is a 400 in the API's format naming `field`, with nothing changed. */
async function assertRefused(req: Inject, field: string) {
  const before = await snapshot();
  // raw path: NUL bytes, bad percent-encodings and unknown routes on purpose, which the contract cannot express
  const res = await t.app.inject(req);
  assert.equal(res.statusCode, 400, `${req.method} ${req.url}: ${res.body}`);
  const body = ZErrorBody.parse(res.json());
  assert.equal(body.error, 'VALIDATION_FAILED');
  assert.equal(body.field, field, res.body);
  assert.ok(body.message.startsWith(`${field}: `), body.message);
  assert.equal(body.requestId, res.headers['x-request-id']);
  assert.equal(await snapshot(), before);
}

const json = (headers: Record<string, string>) => ({ ...headers, 'content-type': 'application/json' });

describe('NUL bytes and invalid UTF-8 are a 400 naming the field (issue 15, defect 1)', () => {
  test('NUL in a path parameter: GET and PATCH /accounts/{id}, POST /authport/create/{id}', async () => {
    await assertRefused({ method: 'GET', url: '/accounts/a%00b', headers: staff }, 'id');
    await assertRefused(
      { method: 'PATCH', url: '/accounts/a%00b', headers: json(staff), payload: { balanceDeltaC: 5 } },
      'id',
    );
    await assertRefused(
      { method: 'POST', url: '/authport/create/ab%00c-1234', headers: json(customer), payload: '"1.2.3.4"' },
      'id',
    );
  });

  test('NUL, unpaired surrogates and bad escapes in a query value: GET /txrecords?uid=', async () => {
    for (const uid of ['a%00b', '%ED%A0%80', '%FF', '%E2%82', '%ZZ', '%']) {
      await assertRefused({ method: 'GET', url: `/txrecords?uid=${uid}`, headers: staff }, 'uid');
    }
    await assertRefused({ method: 'GET', url: '/txrecords?%FF=1', headers: staff }, 'query');
  });

  test('NUL and unpaired surrogates in body strings and keys', async () => {
    const url = `/accounts/${customerId}`;
    await assertRefused(
      { method: 'PATCH', url, headers: json(staff), payload: '{"balanceDeltaC":5,"memo":"a\\u0000b"}' },
      'memo',
    );
    await assertRefused(
      { method: 'PATCH', url, headers: json(staff), payload: '{"balanceDeltaC":5,"memo":"\\ud800"}' },
      'memo',
    );
    await assertRefused(
      { method: 'PATCH', url, headers: json(staff), payload: '{"permissions":{"add":["x\\u0000"]}}' },
      'permissions.add.0',
    );
    await assertRefused(
      { method: 'PATCH', url, headers: json(staff), payload: '{"balanceDeltaC":5,"a\\u0000":1}' },
      'a?',
    );
    await assertRefused(
      { method: 'POST', url: '/authport/create/abcd-1234', headers: json(customer), payload: '"\\u0000"' },
      'body',
    );
  });

  test('a body that is not UTF-8 is refused, not silently repaired', async () => {
    const payload = Buffer.concat([
      Buffer.from('{"balanceDeltaC":5,"memo":"'),
      Buffer.from([0xff, 0xc0]),
      Buffer.from('"}'),
    ]);
    await assertRefused(
      { method: 'PATCH', url: `/accounts/${customerId}`, headers: json(staff), payload },
      'body',
    );
  });

  test('a malformed percent-encoding or an over-long segment in the path answers the API format', async () => {
    for (const url of ['/accounts/%FF', '/accounts/%', '/accounts/%C0%80', '/accounts/%ED%A0%80']) {
      await assertRefused({ method: 'GET', url, headers: staff }, 'path');
    }
    await assertRefused({ method: 'GET', url: `/accounts/${'a'.repeat(500)}`, headers: staff }, 'path');
    // Also before authentication and on routes that do not exist.
    await assertRefused({ method: 'GET', url: '/nope/%FF' }, 'path');
  });

  test('unknown routes answer the API format', async () => {
    // raw path: a route that does not exist, on purpose
    const res = await t.app.inject({ method: 'GET', url: '/nope/x?q=1' });
    assert.equal(res.statusCode, 404);
    assert.equal(ZErrorBody.parse(res.json()).requestId, res.headers['x-request-id']);
  });

  test('a deeply nested body is a 400, not a stack overflow', async () => {
    const payload = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const res = await callRouteUnchecked(t, ENDPOINTS.updateAccount, {
      params: { id: customerId },
      headers: staff,
      payload,
    });
    assert.equal(res.statusCode, 400, res.body);
  });
});

describe('dates outside years 2000-9999 are a 400 naming the field (issue 15, defect 1)', () => {
  const refused: [string, string][] = [
    ['start=0000-01-01', 'start'],
    ['end=0000-01-01', 'end'],
    ['start=0000-12-31T23:59:59Z', 'start'],
    ['start=1999-12-31', 'start'],
    ['end=9999-12-31T23:59:59-14:00', 'end'],
    ['end=2026-02-30', 'end'],
    ['start=+275760-09-13', 'start'],
    ['start=-000001-01-01', 'start'],
  ];
  for (const [query, field] of refused) {
    test(`?${query}`, async () => {
      await assertRefused({ method: 'GET', url: `/txrecords?${query}`, headers: customer }, field);
    });
  }

  test('the bounds themselves are accepted', async () => {
    for (const query of [
      'start=2000-01-01',
      'end=9999-12-31',
      'start=2000-01-01T00:00:00Z&end=9999-12-31T23:59Z',
    ]) {
      const res = await callRouteUnchecked(t, ENDPOINTS.listTxRecords, {
        query: Object.fromEntries(new URLSearchParams(query)),
        headers: customer,
      });
      assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
    }
  });
});

describe('rules for routes added later (any schema)', () => {
  let app: FastifyInstance;
  before(async () => {
    app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    registerErrorHandling(app);
    registerInputRules(app);
    app.withTypeProvider<ZodTypeProvider>().post(
      '/later/:name',
      {
        schema: {
          params: z.object({ name: z.string() }),
          querystring: z.object({ at: z.coerce.date().optional() }),
          body: z.object({ n: z.number().optional(), when: z.coerce.date().optional() }).optional(),
        },
      },
      async () => ({ ok: true }),
    );
    await app.ready();
  });
  after(async () => {
    await app.close();
  });

  const cases: [string, string, string][] = [
    ['/later/x?at=0000-01-01', '{}', 'at'],
    ['/later/x?at=10000-01-01', '{}', 'at'],
    ['/later/x', '{"when":"1969-07-20"}', 'when'],
    ['/later/x', '{"n":1e300}', 'n'],
    ['/later/x', '{"n":9007199254740993}', 'n'],
    ['/later/a%00', '{}', 'name'],
  ];
  for (const [url, payload, field] of cases) {
    test(`${url} ${payload}: 400 naming ${field}`, async () => {
      // raw path: a route this test registers to show the rules reach routes outside the contract
      const res = await app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        payload,
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().field, field);
    });
  }

  test('in-range values pass', async () => {
    // raw path: a route this test registers to show the rules reach routes outside the contract
    const res = await app.inject({
      method: 'POST',
      url: '/later/ok?at=2026-11-21',
      headers: { 'content-type': 'application/json' },
      payload: '{"n":1.5,"when":"2026-11-21T10:00:00Z"}',
    });
    assert.equal(res.statusCode, 200, res.body);
  });
});
