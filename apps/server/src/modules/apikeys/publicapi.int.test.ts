/**
 * The public API under `/api` (rules §7) through the app on PostgreSQL: every operation with an access
 * token and with an API key, 403 without a bearer header, one rate limit behind both paths, API keys
 * (shown once, stored hashed, `/api/*` only, revoked at once, capped), and the public document.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  ENDPOINTS,
  fillPath,
  MAX_API_KEYS,
  publicRoute,
  ZApiKeyCreated,
  ZApiKeyList,
  ZLease,
  ZLeasesResponse,
} from '@pm/contracts';
import { buildAgent, buildNode } from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { buildCustomer, setFlatPrices, type TestCustomer } from '../../test/market.ts';

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
  const res = await t.app.inject({
    method: 'POST',
    url: '/apikeys',
    headers: { ...who.headers, 'content-type': 'application/json' },
    payload: { name },
  });
  assert.equal(res.statusCode, 201, res.body);
  return ZApiKeyCreated.parse(res.json()).key;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** One customer's whole journey on `/api` with the given Authorization header. */
async function journey(headers: Record<string, string>) {
  const agent = await buildAgent(t.db, { nodeId, online: true });
  const agents = await t.app.inject({ method: 'GET', url: '/api/agents?cc=US&limit=100', headers });
  assert.equal(agents.statusCode, 200, agents.body);
  assert.ok((agents.json() as { agents: { id: string }[] }).agents.some((a) => a.id === agent.id));

  const bought = await t.app.inject({
    method: 'POST',
    url: '/api/leases',
    headers: { ...headers, 'content-type': 'application/json' },
    payload: { agentID: agent.id, expPriceC: 500, probe: false, exc: true },
  });
  assert.equal(bought.statusCode, 201, bought.body);
  const lease = ZLease.parse(bought.json());

  const list = await t.app.inject({ method: 'GET', url: '/api/leases?cursor=0', headers });
  assert.equal(list.statusCode, 200, list.body);
  assert.deepEqual(
    (list.json() as { leases: { id: string }[] }).leases.map((l) => l.id),
    [lease.id],
  );

  const renew = await t.app.inject({
    method: 'GET',
    url: `/api/leases/${lease.id}/autoRenew?set=true`,
    headers,
  });
  assert.equal(renew.statusCode, 200, renew.body);
  assert.equal(ZLease.parse(renew.json()).autoRenew, true);

  // A fresh lease on a switched-off proxy is refundable (the FAQ's rule).
  await t.db.query('UPDATE agents SET online = false WHERE id = $1', [agent.id]);
  const refund = await t.app.inject({ method: 'DELETE', url: `/api/leases/${lease.id}`, headers });
  assert.equal(refund.statusCode, 200, refund.body);
  assert.equal((refund.json() as { status: string }).status, 'REFUND_STATUS_REFUNDED');
  assert.equal((refund.json() as { refundAmountC: number }).refundAmountC, 500);
}

describe('the public API', () => {
  test('every public operation answers 403 without a bearer authorization header', async () => {
    const publicOps = Object.values(ENDPOINTS).filter((e) => e.visibility === 'public');
    assert.equal(publicOps.length, 5);
    for (const e of publicOps) {
      const { method, path } = publicRoute(e);
      const url = fillPath(path, { id: 'x1' }) + (e.operationId === 'setAutoRenew' ? '?set=true' : '');
      const res = await t.app.inject({ method, url });
      assert.equal(res.statusCode, 403, `${method} ${url}: ${res.body}`);
      const basic = await t.app.inject({ method, url, headers: { authorization: 'Basic eDp5' } });
      assert.equal(basic.statusCode, 403, `${method} ${url} with Basic`);
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
    const bought = await t.app.inject({
      method: 'POST',
      url: '/api/leases',
      headers: { ...c.headers, 'content-type': 'application/json' },
      payload: { agentID: agent.id, expPriceC: 500, probe: false, exc: true },
    });
    assert.equal(bought.statusCode, 201, bought.body);
    const list = await t.app.inject({ method: 'GET', url: '/api/leases?cursor=0', headers: c.headers });
    const [lease] = ZLeasesResponse.parse(list.json()).leases;
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
    assert.deepEqual(ZLease.parse(bought.json()).socks, lease?.socks, 'the purchase answer says the same');
  });

  test('a bad token or an unknown key is 401', async () => {
    for (const token of ['not-a-jwt', `pmk_${'A'.repeat(43)}`, 'pmk_short']) {
      const res = await t.app.inject({ method: 'GET', url: '/api/leases', headers: bearer(token) });
      assert.equal(res.statusCode, 401, token);
    }
  });

  test('one rate limit behind both paths: auto-renew allows 60 a minute in all', async () => {
    const c = await buildCustomer(t, 0, 'limited');
    const headers = bearer(await createKey(c));
    for (let i = 0; i < 30; i++) {
      const res = await t.app.inject({
        method: 'PATCH',
        url: '/leases/nope/autoRenew?set=true',
        headers: c.headers,
      });
      assert.equal(res.statusCode, 404);
    }
    for (let i = 0; i < 30; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/api/leases/nope/autoRenew?set=true', headers });
      assert.equal(res.statusCode, 404);
    }
    const over = await t.app.inject({ method: 'GET', url: '/api/leases/nope/autoRenew?set=true', headers });
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
    const list = await t.app.inject({ method: 'GET', url: '/apikeys', headers: c.headers });
    const { keys } = ZApiKeyList.parse(list.json());
    assert.equal(keys.length, 1);
    assert.equal(keys[0]?.prefix, key.slice(0, 12));
    assert.ok(!list.body.includes(key), 'the list never carries the key');
  });

  test('a key works on /api/* only: the market API and the key routes refuse it', async () => {
    const c = await buildCustomer(t, 0, 'scoped');
    const headers = bearer(await createKey(c));
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/leases', headers })).statusCode, 200);
    for (const url of ['/leases', '/accounts/my', '/apikeys', '/txrecords?offset=0&limit=10']) {
      const res = await t.app.inject({ method: 'GET', url, headers });
      assert.equal(res.statusCode, 401, url);
    }
    const mint = await t.app.inject({
      method: 'POST',
      url: '/apikeys',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: { name: 'from a key' },
    });
    assert.equal(mint.statusCode, 401, 'a key cannot mint keys');
  });

  test('a revoked key stops at once; nobody revokes another customer’s key', async () => {
    const c = await buildCustomer(t, 0, 'revoker');
    const other = await buildCustomer(t, 0, 'stranger');
    const key = await createKey(c);
    const { keys } = ZApiKeyList.parse(
      (await t.app.inject({ method: 'GET', url: '/apikeys', headers: c.headers })).json(),
    );
    const id = keys[0]!.id;
    const foreign = await t.app.inject({ method: 'DELETE', url: `/apikeys/${id}`, headers: other.headers });
    assert.equal(foreign.statusCode, 404);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/leases', headers: bearer(key) })).statusCode,
      200,
    );
    const revoked = await t.app.inject({ method: 'DELETE', url: `/apikeys/${id}`, headers: c.headers });
    assert.equal(revoked.statusCode, 204);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/leases', headers: bearer(key) })).statusCode,
      401,
    );
    const again = await t.app.inject({ method: 'DELETE', url: `/apikeys/${id}`, headers: c.headers });
    assert.equal(again.statusCode, 404);
  });

  test(`at most ${MAX_API_KEYS} unrevoked keys, also when created at once`, async () => {
    const c = await buildCustomer(t, 0, 'hoarder');
    const results = await Promise.all(
      Array.from({ length: MAX_API_KEYS + 5 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: '/apikeys',
          headers: { ...c.headers, 'content-type': 'application/json' },
          payload: { name: `k${i}` },
        }),
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
        (await t.app.inject({ method: 'GET', url: '/api/leases', headers: bearer(key) })).statusCode === 403,
      { timeoutMs: 3000, what: 'the blocked key refused' },
    );
  });
});

describe('GET /myip', () => {
  test('answers the caller’s address as the API sees it (the add-on whitelists it)', async () => {
    const c = await buildCustomer(t, 0, 'myip');
    const res = await t.app.inject({
      method: 'GET',
      url: '/myip',
      headers: c.headers,
      remoteAddress: '203.0.113.7',
    });
    assert.deepEqual(res.json(), { ip: '203.0.113.7' });
    assert.equal((await t.app.inject({ method: 'GET', url: '/myip' })).statusCode, 401);
  });
});

describe('GET /api/openapi.json', () => {
  test('lists the public operations and the token endpoint, nothing else', async () => {
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
