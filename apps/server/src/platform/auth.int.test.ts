import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError } from '@pm/contracts';
import { buildAccount, newUserId } from '@pm/db/testing';
import { createTestApp, TEST_AUDIENCE, type TestApp } from '../test/app.ts';
import { startTestIssuer } from '../test/issuer.ts';
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
  t.app.inject({ method: 'GET', url: '/accounts/my', headers: authorization ? { authorization } : {} });

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
    assert.equal((await t.app.inject({ method: 'GET', url: '/accounts/my', headers })).statusCode, 200);
    await t.db.query('UPDATE accounts SET blocked = true WHERE user_id = $1', [userId]);
    const blockedAt = Date.now();
    let res = await t.app.inject({ method: 'GET', url: '/txrecords', headers });
    while (res.statusCode === 200 && Date.now() - blockedAt < 5000) {
      await new Promise((r) => setTimeout(r, 100));
      res = await t.app.inject({ method: 'GET', url: '/txrecords', headers });
    }
    assert.equal(res.statusCode, 403);
    assert.deepEqual(
      { error: res.json().error, message: res.json().message },
      { error: 'FORBIDDEN', message: 'Account blocked' },
    );
    assert.ok(Date.now() - blockedAt < 5000);

    await t.db.query('UPDATE accounts SET blocked = false WHERE user_id = $1', [userId]);
    assert.equal((await t.app.inject({ method: 'GET', url: '/accounts/my', headers })).statusCode, 200);
  });
});

describe('staff routes', () => {
  test('a customer gets 403 on every staff route, even with one of the two staff permissions', async () => {
    const target = await buildAccount(t.db);
    const me = await buildAccount(t.db);
    for (const permissions of [[], ['read:users'], ['update:accounts'], ['DEPOSIT']]) {
      const headers = await t.auth(me.userId, permissions);
      const calls = [
        { method: 'GET' as const, url: `/accounts/${target.userId}` },
        { method: 'PATCH' as const, url: `/accounts/${target.userId}`, payload: { balanceDeltaC: 100 } },
        {
          method: 'PATCH' as const,
          url: `/accounts/${target.userId}`,
          payload: { permissions: { add: ['DEPOSIT'] } },
        },
        { method: 'GET' as const, url: `/txrecords?uid=${target.userId}` },
        // The admin area's staff routes (issue 26).
        { method: 'GET' as const, url: '/leases/abcd-1234' },
        { method: 'GET' as const, url: `/admin/leases?uid=${target.userId}` },
        { method: 'POST' as const, url: '/admin/leases/abcd-1234/credit', payload: {} },
        { method: 'POST' as const, url: '/admin/leases/abcd-1234/refund' },
        { method: 'GET' as const, url: `/crypto/transactions?user_id=${target.userId}` },
        { method: 'POST' as const, url: '/crypto/deep-check/', payload: { user_id: target.userId } },
        { method: 'GET' as const, url: '/crypto/held' },
        { method: 'POST' as const, url: '/crypto/held/1/release', payload: { note: 'x' } },
        { method: 'POST' as const, url: '/crypto/held/1/return', payload: { note: 'x' } },
        { method: 'GET' as const, url: '/crypto/vanished' },
        { method: 'GET' as const, url: '/admin/audit' },
      ];
      for (const call of calls) {
        const res = await t.app.inject({ ...call, headers });
        assert.equal(res.statusCode, 403, `${call.method} ${call.url} with [${permissions}]: ${res.body}`);
        assert.equal(res.json().error, 'FORBIDDEN');
      }
    }
    const after = await t.app.inject({
      method: 'GET',
      url: `/accounts/${target.userId}`,
      headers: await t.staffAuth(me.userId),
    });
    assert.equal(after.json().balanceC, 0);
  });
});

describe('createTokenVerifier', () => {
  test('reads permissions by exact name or dotted path, email, referral code and inviter claims', async () => {
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
    });
    assert.deepEqual(await verifier.verify(token), {
      userId: 'kc-user',
      email: 'kc@example.test',
      refcode: 'REF123',
      referredBy: 'INVITER1',
      permissions: ['read:users', 'update:accounts'],
      isStaff: true,
    });
  });

  test('a verified token is reused until it expires, never past it', async () => {
    const issuer = await startTestIssuer(TEST_AUDIENCE);
    try {
      const verifier = createTokenVerifier({
        issuer: issuer.issuer,
        audience: TEST_AUDIENCE,
        algorithms: ['ES256'],
        permissionsClaim: 'permissions',
      });
      const token = await issuer.sign('u-exp', {}, { expiresInS: 2 });
      const first = await verifier.verify(token);
      assert.equal((await verifier.verify(token)).userId, 'u-exp');
      assert.equal(await verifier.verify(token), first, 'the second check reuses the first');
      await assert.rejects(
        verifier.verify(`${token.slice(0, -2)}AA`),
        (e) => e instanceof AppError && e.code === 'UNAUTHENTICATED',
      );
      await new Promise((r) => setTimeout(r, 2100));
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
