/**
 * The public API under `/api` (rules §7) through the app on PostgreSQL: every operation with an access
 * token and with an API key, 403 without a bearer header, one rate limit behind both paths, API keys
 * (shown once, stored hashed, `/api/*` only, revoked at once, capped), and the public document.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS, MAX_API_KEYS } from '@pm/contracts';
import { buildAgent, buildNode } from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { buildCustomer, setFlatPrices, type TestCustomer } from '../../test/market.ts';
import { callRoute, callRouteUnchecked } from '../../test/route.ts';

let t: TestApp;
let nodeId: string;

before(async () => {
  t = await createTestApp('public_api', { payments: false });
  nodeId = (await buildNode(t.db)).id;
  await setFlatPrices(t, 500, 200);
});
after(async () => {
  await t?.close();
});

async function createKey(who: TestCustomer, name = 'script'): Promise<string> {
  return (await callRoute(t, ENDPOINTS.createApiKey, { headers: who.headers, body: { name } })).ok().key;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** One customer's whole journey on `/api` with the given Authorization header. */
async function journey(headers: Record<string, string>) {
  const agent = await buildAgent(t.db, { nodeId, online: true });
  // `ok()` holds each answer to its success status and schema.
  const agents = await callRoute(t, ENDPOINTS.listAgents, {
    publicApi: true,
    query: { cc: 'US', limit: 100 },
    headers,
  });
  assert.ok(agents.ok().agents.some((a) => a.id === agent.id));

  const bought = await callRoute(t, ENDPOINTS.createLease, {
    publicApi: true,
    headers,
    body: { agentID: agent.id, expPriceC: 500, probe: false, exc: true },
  });
  const lease = bought.ok();

  const list = await callRoute(t, ENDPOINTS.listLeases, { publicApi: true, query: { cursor: 0 }, headers });
  assert.deepEqual(
    list.ok().leases.map((l) => l.id),
    [lease.id],
  );

  const renew = await callRoute(t, ENDPOINTS.setAutoRenew, {
    publicApi: true,
    params: { id: lease.id },
    query: { set: 'true' },
    headers,
  });
  assert.equal(renew.ok().autoRenew, true);

  // A fresh lease on a switched-off proxy is refundable (the FAQ's rule).
  await t.db.query('UPDATE agents SET online = false WHERE id = $1', [agent.id]);
  const refund = await callRoute(t, ENDPOINTS.refundLease, {
    publicApi: true,
    params: { id: lease.id },
    headers,
  });
  assert.equal(refund.ok().status, 'REFUND_STATUS_REFUNDED');
  assert.equal(refund.ok().refundAmountC, 500);
}

describe('the public API', () => {
  test('every public operation answers 403 without a bearer authorization header', async () => {
    const publicOps = Object.values(ENDPOINTS).filter((e) => e.visibility === 'public');
    assert.equal(publicOps.length, 5);
    for (const e of publicOps) {
      // Unchecked: one call shape for operations of different shapes (an `id` the others ignore).
      const call = {
        publicApi: true,
        params: { id: 'x1' },
        query: e.operationId === 'setAutoRenew' ? { set: 'true' } : undefined,
      };
      const res = await callRouteUnchecked(t, e, call);
      assert.equal(res.statusCode, 403, `${e.operationId} on /api: ${res.body}`);
      const basic = await callRouteUnchecked(t, e, { ...call, headers: { authorization: 'Basic eDp5' } });
      assert.equal(basic.statusCode, 403, `${e.operationId} on /api with Basic`);
    }
  });

  test('the whole journey with an access token', async () => {
    const c = await buildCustomer(t, 10_000, 'tokenuser');
    await journey(c.headers);
  });

  test('the whole journey with an API key', async () => {
    const c = await buildCustomer(t, 10_000, 'keyuser');
    await journey(bearer(await createKey(c)));
  });

  test('a lease answer names the concrete ports of its node, whose base port is not the default', async () => {
    const c = await buildCustomer(t, 10_000, 'portsuser');
    const node = await buildNode(t.db, {
      publicHost: 'gw7.example.test',
      socksBasePort: 31_000,
      sparePorts: 0,
    });
    const agent = await buildAgent(t.db, { nodeId: node.id, online: true });
    const bought = await callRoute(t, ENDPOINTS.createLease, {
      publicApi: true,
      headers: c.headers,
      body: { agentID: agent.id, expPriceC: 500, probe: false, exc: true },
    });
    const purchased = bought.ok();
    const list = await callRoute(t, ENDPOINTS.listLeases, {
      publicApi: true,
      query: { cursor: 0 },
      headers: c.headers,
    });
    const [lease] = list.ok().leases;
    // Rules §3's base port stays; the ports to dial are spelled out, so no client adds 2080-6080 itself.
    assert.deepEqual(
      {
        host: lease?.socks.host,
        port: lease?.socks.port,
        ports: lease?.socks.ports,
        http: lease?.socks.httpPort,
      },
      { host: 'gw7.example.test', port: 31_000, ports: [33_080, 34_080, 35_080, 36_080], http: 37_080 },
    );
    assert.deepEqual(purchased.socks, lease?.socks, 'the purchase answer says the same');
  });

  test('a bad token or an unknown key is 401', async () => {
    for (const token of ['not-a-jwt', `pmk_${'A'.repeat(43)}`, 'pmk_short']) {
      const res = await callRoute(t, ENDPOINTS.listLeases, { publicApi: true, headers: bearer(token) });
      assert.equal(res.statusCode, 401, token);
    }
  });

  test('one rate limit behind both paths: auto-renew allows 60 a minute in all', async () => {
    const c = await buildCustomer(t, 0, 'limited');
    const headers = bearer(await createKey(c));
    const nope = { params: { id: 'nope' }, query: { set: 'true' as const } };
    for (let i = 0; i < 30; i++) {
      const res = await callRoute(t, ENDPOINTS.setAutoRenew, { ...nope, headers: c.headers });
      assert.equal(res.statusCode, 404);
    }
    for (let i = 0; i < 30; i++) {
      const res = await callRoute(t, ENDPOINTS.setAutoRenew, { ...nope, publicApi: true, headers });
      assert.equal(res.statusCode, 404);
    }
    const over = await callRoute(t, ENDPOINTS.setAutoRenew, { ...nope, publicApi: true, headers });
    assert.equal(over.statusCode, 429);
  });
});

describe('API keys', () => {
  test('shown once, stored as SHA-256, listed by name and prefix', async () => {
    const c = await buildCustomer(t, 0, 'lister');
    const key = await createKey(c, ' CI runner ');
    assert.match(key, /^pmk_[\w-]{43}$/);
    const rows = await t.db.query<{ key_hash: string; name: string }>(
      'SELECT key_hash, name FROM api_keys WHERE user_id = $1',
      [c.userId],
    );
    assert.deepEqual(rows, [{ key_hash: createHash('sha256').update(key).digest('hex'), name: 'CI runner' }]);
    const list = await callRoute(t, ENDPOINTS.listApiKeys, { headers: c.headers });
    const { keys } = list.ok();
    assert.equal(keys.length, 1);
    assert.equal(keys[0]?.prefix, key.slice(0, 12));
    assert.ok(!list.body.includes(key), 'the list never carries the key');
  });

  test('a key works on /api/* only: the market API and the key routes refuse it', async () => {
    const c = await buildCustomer(t, 0, 'scoped');
    const headers = bearer(await createKey(c));
    assert.equal((await callRoute(t, ENDPOINTS.listLeases, { publicApi: true, headers })).statusCode, 200);
    const marketCalls = {
      listLeases: () => callRoute(t, ENDPOINTS.listLeases, { headers }),
      getMyAccount: () => callRoute(t, ENDPOINTS.getMyAccount, { headers }),
      listApiKeys: () => callRoute(t, ENDPOINTS.listApiKeys, { headers }),
      listTxRecords: () =>
        callRoute(t, ENDPOINTS.listTxRecords, { query: { offset: 0, limit: 10 }, headers }),
    };
    for (const [operation, call] of Object.entries(marketCalls)) {
      assert.equal((await call()).statusCode, 401, operation);
    }
    const mint = await callRoute(t, ENDPOINTS.createApiKey, { headers, body: { name: 'from a key' } });
    assert.equal(mint.statusCode, 401, 'a key cannot mint keys');
  });

  test('a revoked key stops at once; nobody revokes another customer’s key', async () => {
    const c = await buildCustomer(t, 0, 'revoker');
    const other = await buildCustomer(t, 0, 'stranger');
    const key = await createKey(c);
    const { keys } = (await callRoute(t, ENDPOINTS.listApiKeys, { headers: c.headers })).ok();
    const id = keys[0]!.id;
    const revoke = (headers: Record<string, string>) =>
      callRoute(t, ENDPOINTS.revokeApiKey, { params: { id }, headers });
    const leasesWithKey = () => callRoute(t, ENDPOINTS.listLeases, { publicApi: true, headers: bearer(key) });
    const foreign = await revoke(other.headers);
    assert.equal(foreign.statusCode, 404);
    assert.equal((await leasesWithKey()).statusCode, 200);
    const revoked = await revoke(c.headers);
    assert.equal(revoked.statusCode, 204);
    assert.equal((await leasesWithKey()).statusCode, 401);
    const again = await revoke(c.headers);
    assert.equal(again.statusCode, 404);
  });

  test(`at most ${MAX_API_KEYS} unrevoked keys, also when created at once`, async () => {
    const c = await buildCustomer(t, 0, 'hoarder');
    const results = await Promise.all(
      Array.from({ length: MAX_API_KEYS + 5 }, (_, i) =>
        callRoute(t, ENDPOINTS.createApiKey, { headers: c.headers, body: { name: `k${i}` } }),
      ),
    );
    assert.equal(results.filter((r) => r.statusCode === 201).length, MAX_API_KEYS);
    assert.equal(results.filter((r) => r.statusCode === 409).length, 5);
  });

  test('a blocked customer’s key is refused', async () => {
    const c = await buildCustomer(t, 0, 'blockedkey');
    const key = await createKey(c);
    await t.db.query('UPDATE accounts SET blocked = true WHERE user_id = $1', [c.userId]);
    // Refused once the "not blocked" cache (1 s) lapses.
    await waitFor(
      async () =>
        (await callRoute(t, ENDPOINTS.listLeases, { publicApi: true, headers: bearer(key) })).statusCode ===
        403,
      { timeoutMs: 3000, what: 'the blocked key refused' },
    );
  });
});

describe('GET /myip', () => {
  test('answers the caller’s address as the API sees it (the add-on whitelists it)', async () => {
    const c = await buildCustomer(t, 0, 'myip');
    const res = await callRoute(t, ENDPOINTS.myAddress, { headers: c.headers, remoteAddress: '203.0.113.7' });
    // The raw body, not `ok()`: the parse would drop any field beside the address.
    assert.deepEqual(res.json(), { ip: '203.0.113.7' });
    assert.equal((await callRoute(t, ENDPOINTS.myAddress)).statusCode, 401);
  });
});

describe('GET /api/openapi.json', () => {
  test('lists the public operations and the token endpoint, nothing else', async () => {
    // raw path: the public document is served beside the contract, not declared in it
    const res = await t.app.inject({ method: 'GET', url: '/api/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json() as { paths: Record<string, Record<string, { operationId?: string }>> };
    const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([m]) => m !== 'servers')
        .map(([m, op]) => `${m.toUpperCase()} ${path} ${op.operationId}`),
    );
    assert.deepEqual(ops.sort(), [
      'DELETE /api/leases/{id} refundLease',
      'GET /api/agents listAgents',
      'GET /api/leases listLeases',
      'GET /api/leases/{id}/autoRenew setAutoRenew',
      'POST /api/leases createLease',
      'POST /token getToken',
    ]);
    assert.equal(Object.keys(doc.paths)[0], '/token', 'the token request first');
  });
});
