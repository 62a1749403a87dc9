import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError, ENDPOINTS, type Endpoint } from '@pm/contracts';
import { buildAccount, newUserId } from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import { createTestApp, TEST_AUDIENCE, type TestApp } from '../test/app.ts';
import { startTestIssuer } from '../test/issuer.ts';
import { callRoute, callRouteUnchecked, type UncheckedCall } from '../test/route.ts';
import { createTokenVerifier } from './auth.ts';

let t: TestApp;

before(async () => {
  t = await createTestApp('auth');
});
after(async () => {
  await t?.close();
});

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const getMy = (authorization?: string) =>
  callRoute(t, ENDPOINTS.getMyAccount, { headers: authorization ? { authorization } : {} });

async function assert401(authorization: string | undefined, why: string) {
  const res = await getMy(authorization);
  assert.equal(res.statusCode, 401, `${why}: ${res.body}`);
  assert.equal(res.json().error, 'UNAUTHENTICATED', why);
  assert.equal(res.json().message, 'Authentication required');
  assert.equal(res.headers['www-authenticate'], 'Bearer');
  assert.ok(res.headers['x-request-id']);
}

describe('bearer tokens', () => {
  test('a valid token reaches the route (404 before the account exists)', async () => {
    const res = await getMy(`Bearer ${await t.issuer.sign(newUserId())}`);
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error, 'NOT_FOUND');
  });

  test('no token, or not a bearer token: 401', async () => {
    await assert401(undefined, 'missing header');
    await assert401('Basic dXNlcjpwYXNz', 'basic auth');
    await assert401('Bearer ', 'empty token');
    await assert401('Bearer not-a-jwt', 'garbage');
  });

  test('expired, wrong audience, wrong issuer: 401', async () => {
    const sub = newUserId();
    await assert401(`Bearer ${await t.issuer.sign(sub, {}, { expiresInS: -60 })}`, 'expired');
    await assert401(`Bearer ${await t.issuer.sign(sub, {}, { audience: 'https://other.api' })}`, 'wrong aud');
    await assert401(`Bearer ${await t.issuer.sign(sub, {}, { issuer: 'http://127.0.0.1:1' })}`, 'wrong iss');
  });

  test('alg none and unlisted algorithms (HS256; RS256 with a key that is in the JWKS): 401', async () => {
    const sub = newUserId();
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub, iss: t.issuer.issuer, aud: TEST_AUDIENCE, iat: now, exp: now + 300 };
    await assert401(`Bearer ${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`, 'alg none');
    const secret = new TextEncoder().encode('a-shared-secret-that-is-long-enough-for-hs256');
    await assert401(`Bearer ${await t.issuer.sign(sub, {}, { alg: 'HS256', key: secret })}`, 'HS256');
    await assert401(
      `Bearer ${await t.issuer.sign(sub, {}, { alg: 'RS256', kid: 'rs-1', key: t.issuer.rsaKey })}`,
      'RS256 not allowed',
    );
  });

  test('an access token must be typed at+jwt (RFC 9068): typ JWT, an ID token type or none is 401', async () => {
    const sub = newUserId();
    await assert401(`Bearer ${await t.issuer.sign(sub, {}, { typ: 'JWT' })}`, 'typ JWT');
    await assert401(`Bearer ${await t.issuer.sign(sub, {}, { typ: 'dpop+jwt' })}`, 'typ dpop+jwt');
    const untyped = await t.issuer.sign(sub, {}, { typ: '' });
    await assert401(`Bearer ${untyped}`, 'no typ');
    const ok = await getMy(`Bearer ${await t.issuer.sign(sub, {}, { typ: 'application/at+jwt' })}`);
    assert.equal(ok.statusCode, 404, 'the media-type form application/at+jwt is the same typ');
  });

  test('tampered signature, tampered payload, unknown key: 401', async () => {
    const sub = newUserId();
    const [h, p, s] = (await t.issuer.sign(sub)).split('.') as [string, string, string];
    const mid = Math.floor(s.length / 2);
    const flipped = `${s.slice(0, mid)}${s[mid] === 'A' ? 'B' : 'A'}${s.slice(mid + 1)}`;
    await assert401(`Bearer ${h}.${p}.${flipped}`, 'tampered signature');
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    await assert401(`Bearer ${h}.${b64url({ ...payload, sub: 'someone-else' })}.${s}`, 'tampered payload');
    await assert401(
      `Bearer ${await t.issuer.sign(sub, {}, { kid: 'not-in-jwks', key: t.issuer.strangerKey })}`,
      'unknown kid',
    );
    await assert401(
      `Bearer ${await t.issuer.sign(sub, {}, { key: t.issuer.strangerKey })}`,
      'known kid, wrong key',
    );
  });
});

describe('blocked accounts', () => {
  test('a blocked user is refused within 5 seconds of the block, and back after unblocking', async () => {
    const { userId } = await buildAccount(t.db);
    const headers = await t.auth(userId);
    assert.equal((await callRoute(t, ENDPOINTS.getMyAccount, { headers })).statusCode, 200);
    await t.db.query('UPDATE accounts SET blocked = true WHERE user_id = $1', [userId]);
    const res = await waitFor(
      async () => {
        const r = await callRoute(t, ENDPOINTS.listTxRecords, { headers });
        return r.statusCode !== 200 && r;
      },
      { timeoutMs: 5000, intervalMs: 100, what: 'refused after the block' },
    );
    assert.equal(res.statusCode, 403);
    assert.deepEqual(
      { error: res.json().error, message: res.json().message },
      { error: 'FORBIDDEN', message: 'Account blocked' },
    );

    await t.db.query('UPDATE accounts SET blocked = false WHERE user_id = $1', [userId]);
    assert.equal((await callRoute(t, ENDPOINTS.getMyAccount, { headers })).statusCode, 200);
  });
});

describe('staff routes', () => {
  test('a customer gets 403 on every staff route, even with one of the two staff permissions', async () => {
    const target = await buildAccount(t.db);
    const me = await buildAccount(t.db);
    for (const permissions of [[], ['read:users'], ['update:accounts'], ['DEPOSIT']]) {
      const headers = await t.auth(me.userId, permissions);
      const id = { id: target.userId };
      const lease = { id: 'abcd-1234' };
      // Refused before their input is read: some parts are left incomplete (callRouteUnchecked).
      const calls: [Endpoint, UncheckedCall][] = [
        [ENDPOINTS.getAccount, { params: id }],
        [ENDPOINTS.updateAccount, { params: id, body: { balanceDeltaC: 100 } }],
        [ENDPOINTS.updateAccount, { params: id, body: { permissions: { add: ['DEPOSIT'] } } }],
        [ENDPOINTS.listTxRecords, { query: { uid: target.userId } }],
        // The admin area's staff routes (issue 26).
        [ENDPOINTS.getAdminLease, { params: lease }],
        [ENDPOINTS.findAdminLeases, { query: { uid: target.userId } }],
        [ENDPOINTS.creditLease, { params: lease, body: {} }],
        [ENDPOINTS.staffRefundLease, { params: lease }],
        [ENDPOINTS.listCryptoTransactions, { query: { user_id: target.userId } }],
        [ENDPOINTS.deepCheckPayments, { body: { user_id: target.userId } }],
        [ENDPOINTS.listHeldCredits, {}],
        [ENDPOINTS.releaseHeldCredit, { params: { id: 1 }, body: { note: 'x' } }],
        [ENDPOINTS.returnHeldCredit, { params: { id: 1 }, body: { note: 'x' } }],
        [ENDPOINTS.listVanishedPayments, {}],
        [ENDPOINTS.listAuditEntries, {}],
      ];
      for (const [e, call] of calls) {
        const res = await callRouteUnchecked(t, e, { ...call, headers });
        assert.equal(res.statusCode, 403, `${e.operationId} with [${permissions}]: ${res.body}`);
        assert.equal(res.json().error, 'FORBIDDEN');
      }
    }
    const after = await callRoute(t, ENDPOINTS.getAccount, {
      params: { id: target.userId },
      headers: await t.staffAuth(me.userId),
    });
    assert.equal(after.json().balanceC, 0);
  });
});

describe('createTokenVerifier', () => {
  test('reads permissions by exact name or dotted path, email, referral code, inviter and confirmed-address claims', async () => {
    const verifier = createTokenVerifier({
      issuer: t.issuer.issuer,
      audience: TEST_AUDIENCE,
      algorithms: ['ES256'],
      permissionsClaim: 'realm_access.roles',
      jwksUri: t.issuer.jwksUri,
    });
    const token = await t.issuer.sign('kc-user', {
      realm_access: { roles: ['read:users', 'update:accounts', 7] },
      email: 'kc@example.test',
      'https://market.test/referral_code': 'REF123',
      'https://market.test/referred_by': 'INVITER1',
      // Auth0 namespaces custom claims; the plain name is left out here.
      email_verified: undefined,
      'https://market.test/email_verified': false,
    });
    const { issuedAtMs, ...principal } = await verifier.verify(token);
    assert.equal(
      issuedAtMs,
      (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()).iat as number) * 1000,
    );
    assert.deepEqual(principal, {
      userId: 'kc-user',
      email: 'kc@example.test',
      refcode: 'REF123',
      referredBy: 'INVITER1',
      permissions: ['read:users', 'update:accounts'],
      isStaff: true,
      emailVerified: false,
    });
  });

  test('a verified token is reused until it expires, never past it', async () => {
    const issuer = await startTestIssuer(TEST_AUDIENCE);
    try {
      let skewMs = 0; // the verifier's clock runs this far ahead: the test passes the expiry by moving it
      const verifier = createTokenVerifier(
        {
          issuer: issuer.issuer,
          audience: TEST_AUDIENCE,
          algorithms: ['ES256'],
          permissionsClaim: 'permissions',
        },
        () => Date.now() + skewMs,
      );
      const token = await issuer.sign('u-exp', {}, { expiresInS: 2 });
      const first = await verifier.verify(token);
      assert.equal((await verifier.verify(token)).userId, 'u-exp');
      assert.equal(await verifier.verify(token), first, 'the second check reuses the first');
      await assert.rejects(
        verifier.verify(`${token.slice(0, -2)}AA`),
        (e) => e instanceof AppError && e.code === 'UNAUTHENTICATED',
      );
      skewMs = 2100;
      await assert.rejects(
        verifier.verify(token),
        (e) => e instanceof AppError && e.code === 'UNAUTHENTICATED',
      );
    } finally {
      await issuer.close();
    }
  });

  test('discovery failure answers 503 and is retried; a mismatching issuer in discovery is refused', async () => {
    const issuer = await startTestIssuer(TEST_AUDIENCE);
    try {
      const verifier = createTokenVerifier({
        issuer: issuer.issuer,
        audience: TEST_AUDIENCE,
        algorithms: ['ES256'],
        permissionsClaim: 'permissions',
      });
      const token = await issuer.sign('u1');
      issuer.setDiscoveryDown(true);
      await assert.rejects(verifier.verify(token), (e) => e instanceof AppError && e.code === 'UNAVAILABLE');
      issuer.setDiscoveryDown(false);
      assert.equal((await verifier.verify(token)).userId, 'u1');
      assert.equal(issuer.hits.get('/.well-known/openid-configuration'), 2);

      const wrong = createTokenVerifier({
        issuer: `${issuer.issuer}/`,
        audience: TEST_AUDIENCE,
        algorithms: ['ES256'],
        permissionsClaim: 'permissions',
      });
      await assert.rejects(wrong.verify(token), (e) => e instanceof AppError && e.code === 'UNAVAILABLE');
    } finally {
      await issuer.close();
    }
  });
});

describe('tokens end with the account (issue 37 item 5)', () => {
  let p: TestApp;
  before(async () => {
    p = await createTestApp('auth_valid_after', { ports: true });
  });
  after(async () => {
    await p?.close();
  });

  const iatOf = (token: string) =>
    (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { iat: number }).iat;
  /** Polls `probe` until it answers `status`; the time it took. */
  async function msUntil(probe: () => Promise<number>, status: number): Promise<number> {
    const start = Date.now();
    await waitFor(async () => (await probe()) === status, {
      timeoutMs: 3000,
      intervalMs: 50,
      what: `${status}`,
    });
    return Date.now() - start;
  }

  test('a token issued before the valid-after second is refused within a second on both APIs; later ones and API keys work', async () => {
    const userId = newUserId();
    await buildAccount(p.db, { userId });
    const old = await p.issuer.sign(userId);
    const market = (token: string) =>
      callRoute(p, ENDPOINTS.getMyAccount, { headers: { authorization: `Bearer ${token}` } });
    const ports = (token: string) =>
      callRoute(p, ENDPOINTS.listPortPackages, {
        params: { id: userId },
        headers: { authorization: `Bearer ${token}` },
      });
    assert.equal((await market(old)).statusCode, 200);
    assert.equal((await ports(old)).statusCode, 200);
    const created = await callRoute(p, ENDPOINTS.createApiKey, {
      headers: { authorization: `Bearer ${old}` },
      body: { name: 'script' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const key = (created.json() as { key: string }).key;
    const viaKey = () =>
      callRoute(p, ENDPOINTS.listLeases, { headers: { authorization: `Bearer ${key}` }, publicApi: true });

    // What the identity host writes on a password change, reset, block or two-factor change.
    await p.db.query(`UPDATE accounts SET tokens_valid_after = to_timestamp($2) WHERE user_id = $1`, [
      userId,
      iatOf(old) + 1,
    ]);
    const tookMs = await msUntil(async () => (await market(old)).statusCode, 401);
    assert.ok(tookMs <= 1100, `market API refused it after ${tookMs} ms`);
    assert.equal((await market(old)).json().error, 'UNAUTHENTICATED');
    assert.ok((await msUntil(async () => (await ports(old)).statusCode, 401)) <= 1100, 'the Ports API too');
    // An API key is not a session: it outlives a password change...
    assert.equal((await viaKey()).statusCode, 200);
    // ...and a token issued after the change works.
    const fresh = await p.issuer.sign(userId, {}, { issuedAtS: iatOf(old) + 2 });
    assert.ok(iatOf(fresh) >= iatOf(old) + 1);
    assert.equal((await market(fresh)).statusCode, 200);
    assert.equal((await ports(fresh)).statusCode, 200);
    // A block stops tokens and API keys alike.
    await p.db.query('UPDATE accounts SET blocked = true WHERE user_id = $1', [userId]);
    assert.ok((await msUntil(async () => (await viaKey()).statusCode, 403)) <= 1100);
    assert.equal((await market(fresh)).statusCode, 403);
    // The Ports API's listener keeps its own one-second cache.
    assert.ok((await msUntil(async () => (await ports(fresh)).statusCode, 403)) <= 1100);
  });
});
