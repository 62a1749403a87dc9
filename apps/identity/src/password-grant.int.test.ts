import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { ensureUser, type IdentityHandle } from './index.ts';
import { ACCOUNT_SLOWDOWN } from './limits.ts';
import {
  API_AUDIENCE,
  API_CLIENT,
  type MailCatcher,
  outsideTotp,
  passwordGrant,
  startIdentity,
  startMailCatcher,
  TEST_TOTP_SECRET,
  WEB_CLIENT_ID,
} from './test-support.ts';

describe('password grant (public API)', () => {
  let db: TestDatabase;
  let mail: MailCatcher;
  let idp: IdentityHandle;

  before(async () => {
    db = await createTestDatabase('identity_pwgrant');
    mail = await startMailCatcher();
    idp = await startIdentity(db, mail.url);
    await ensureUser(db, { email: 'api-user@example.com', password: 'correct horse 1', emailVerified: true });
    await ensureUser(db, {
      email: 'Staff@Example.com',
      password: 'staff password 1',
      permissions: ['read:users', 'update:accounts'],
      totpSecret: TEST_TOTP_SECRET,
    });
  });

  after(async () => {
    await idp?.close();
    await mail?.close();
    await db?.drop();
  });

  test('confidential client gets an ES256 at+jwt for the API and no refresh token', async () => {
    const { status, body } = await passwordGrant(idp.url, {
      username: 'api-user@example.com',
      password: 'correct horse 1',
    });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.refresh_token, undefined);
    assert.equal(body.expires_in, 300);
    const token = String(body.access_token);
    const header = decodeProtectedHeader(token);
    assert.equal(header.alg, 'ES256');
    assert.equal(header.typ, 'at+jwt');
    const jwks = createRemoteJWKSet(new URL(`${idp.url}/jwks`));
    const { payload } = await jwtVerify(token, jwks, {
      issuer: idp.url,
      audience: API_AUDIENCE,
      algorithms: ['ES256'],
      typ: 'at+jwt',
    });
    assert.equal(payload.email, 'api-user@example.com');
    assert.deepEqual(payload.permissions, []);
    assert.match(String(payload.referral_code), /^[A-Z2-9]{8}$/);
    assert.equal(payload.client_id, API_CLIENT.clientId);
    const rows = await db.query<{ last_login_at: Date | null; last_login_ip: string | null }>(
      'SELECT last_login_at, last_login_ip FROM users WHERE email = $1',
      ['api-user@example.com'],
    );
    assert.ok(rows[0]?.last_login_at, 'last login recorded');
    assert.match(String(rows[0]?.last_login_ip), /127\.0\.0\.1/);
  });

  test('staff token carries both staff permissions; email is case-insensitive', async () => {
    const { status, body } = await passwordGrant(idp.url, {
      username: 'staff@example.com',
      password: 'staff password 1',
      otp: await outsideTotp(TEST_TOTP_SECRET).next(),
    });
    assert.equal(status, 200, JSON.stringify(body));
    const jwks = createRemoteJWKSet(new URL(`${idp.url}/jwks`));
    const { payload } = await jwtVerify(String(body.access_token), jwks, {
      issuer: idp.url,
      audience: API_AUDIENCE,
    });
    assert.deepEqual(payload.permissions, ['read:users', 'update:accounts']);
    assert.equal(payload.email, 'staff@example.com');
  });

  test('the public web client may not use the password grant', async () => {
    const { status, body } = await passwordGrant(idp.url, {
      username: 'api-user@example.com',
      password: 'correct horse 1',
      client_id: WEB_CLIENT_ID,
      client_secret: '',
    });
    assert.equal(status, 400);
    assert.equal(body.access_token, undefined);
  });

  test('the API client is public: its id alone, no secret; an unknown client id is refused', async () => {
    const { status, body } = await passwordGrant(idp.url, {
      username: 'api-user@example.com',
      password: 'correct horse 1',
    });
    assert.equal(status, 200, JSON.stringify(body));
    // A secret proves nothing for a client whose id is published: one sent is refused, not ignored.
    const withSecret = await passwordGrant(idp.url, {
      username: 'api-user@example.com',
      password: 'correct horse 1',
      client_secret: 'anything',
    });
    assert.equal(withSecret.status, 401);
    assert.equal(withSecret.body.error, 'invalid_client');
    const unknown = await passwordGrant(idp.url, {
      username: 'api-user@example.com',
      password: 'correct horse 1',
      client_id: 'someone-else',
    });
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.error, 'invalid_client');
  });

  test('wrong password is refused with the sign-in text, then the rate limit answers 429', async () => {
    await ensureUser(db, { email: 'victim@example.com', password: 'victim password 1' });
    for (let i = 0; i < ACCOUNT_SLOWDOWN.freeFailures; i++) {
      const { status, body } = await passwordGrant(idp.url, {
        username: 'victim@example.com',
        password: `guess-${i}-xx`,
      });
      assert.equal(status, 400);
      assert.equal(body.error, 'invalid_grant');
      assert.equal(body.error_description, 'Wrong email or password.');
    }
    // Even the right password waits now: the account's slow-down (limits.ts) holds every address
    // but the one of its last successful sign-in (this one has none).
    const { status, body } = await passwordGrant(idp.url, {
      username: 'victim@example.com',
      password: 'victim password 1',
    });
    assert.equal(status, 429);
    assert.equal(body.error_description, 'Too many attempts, try again later.');
  });
});
