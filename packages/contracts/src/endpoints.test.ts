import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EndpointRequest } from './endpoint.ts';
import { ENDPOINTS, endpointTarget } from './endpoints.ts';

test("a call's method and URL come from the operation: path filled and encoded, query as strings", () => {
  assert.deepEqual(endpointTarget(ENDPOINTS.getAgent, { params: { id: 'a/b c' } }), {
    method: 'GET',
    url: '/agents/a%2Fb%20c',
  });
  assert.deepEqual(
    endpointTarget(ENDPOINTS.listTxRecords, {
      query: { offset: 0, limit: 10, uid: undefined, start: 'x&y' },
    }),
    { method: 'GET', url: '/txrecords?offset=0&limit=10&start=x%26y' },
  );
  assert.deepEqual(endpointTarget(ENDPOINTS.listLeases), { method: 'GET', url: '/leases' });
});

test("a public operation's /api twin has its own method where the contract names one", () => {
  const twin = endpointTarget(
    ENDPOINTS.setAutoRenew,
    { params: { id: 'x' }, query: { set: 'true' } },
    { publicApi: true },
  );
  assert.equal(twin.url, '/api/leases/x/autoRenew?set=true');
  assert.equal(twin.method, ENDPOINTS.setAutoRenew.publicMethod ?? ENDPOINTS.setAutoRenew.method);
});

test('a missing path parameter is refused, not sent as a literal {id}', () => {
  assert.throws(() => endpointTarget(ENDPOINTS.getAgent), /missing path parameter id/);
});

test("the request parts are typed by the operation's schemas (the compiler refuses a wrong one)", () => {
  const ok: EndpointRequest<typeof ENDPOINTS.createWebhook> = { body: { url: 'https://example.com/hook' } };
  // @ts-expect-error: a misspelt body field fails the typecheck.
  const misspelt: EndpointRequest<typeof ENDPOINTS.createWebhook> = { body: { uri: 'https://example.com' } };
  // @ts-expect-error: an operation without a query takes none.
  const noQuery: EndpointRequest<typeof ENDPOINTS.getMyAccount> = { query: { a: '1' } };
  assert.ok(ok && misspelt && noQuery);
});
