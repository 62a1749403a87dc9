import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import * as oidc from 'openid-client';
import { ensureUser, type IdentityHandle } from './index.ts';
import {
  Browser,
  CORS_ORIGIN,
  codeFlowSignIn,
  discoverWebClient,
  formAction,
  type MailCatcher,
  outsideTotp,
  passwordGrant,
  REDIRECT_URI,
  startIdentity,
  startMailCatcher,
  TEST_TOTP_SECRET,
} from './test-support.ts';

describe('admin auth API', () => {
  let db: TestDatabase;
  let mail: MailCatcher;
  let idp: IdentityHandle;
  let config: oidc.Configuration;
  let staffToken: string;
  let customerToken: string;
  let bob: { id: string; referralCode: string };

  const call = (path: string, body: unknown, token?: string) =>
    fetch(`${idp.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        origin: CORS_ORIGIN,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
    });

  before(async () => {
    db = await createTestDatabase('identity_admin');
    mail = await startMailCatcher();
    idp = await startIdentity(db, mail.url);
    config = await discoverWebClient(idp.url);
    await ensureUser(db, {
      email: 'staff@example.com',
      password: 'staff password',
      permissions: ['read:users', 'update:accounts'],
      totpSecret: TEST_TOTP_SECRET,
    });
    await ensureUser(db, {
      email: 'halfstaff@example.com',
      password: 'half password',
      permissions: ['read:users'],
      totpSecret: TEST_TOTP_SECRET,
    });
    bob = await ensureUser(db, { email: 'bob@example.com', password: 'bob password', emailVerified: true });
    // The market API's account row for bob, as the server would have created it.
    await db.query(`INSERT INTO accounts (user_id, email) VALUES ($1, 'bob@example.com')`, [bob.id]);
    staffToken = String(
      (
        await passwordGrant(idp.url, {
          username: 'staff@example.com',
          password: 'staff password',
          otp: await outsideTotp(TEST_TOTP_SECRET).next(),
        })
      ).body.access_token,
    );
    customerToken = String(
      (await passwordGrant(idp.url, { username: 'bob@example.com', password: 'bob password' })).body
        .access_token,
    );
  });

  after(async () => {
    await idp?.close();
    await mail?.close();
    await db?.drop();
  });

  test('401 without a valid token, 403 without both staff permissions', async () => {
    assert.equal((await call('/administator/user/info/', { email: 'bob@example.com' })).status, 401);
    assert.equal(
      (await call('/administator/user/info/', { email: 'bob@example.com' }, 'not.a.jwt')).status,
      401,
    );
    const forged = `${staffToken.slice(0, -4)}AAAA`;
    assert.equal((await call('/administator/user/info/', { email: 'bob@example.com' }, forged)).status, 401);
    const customer = await call('/administator/user/info/', { email: 'bob@example.com' }, customerToken);
    assert.equal(customer.status, 403);
    const half = String(
      (
        await passwordGrant(idp.url, {
          username: 'halfstaff@example.com',
          password: 'half password',
          otp: await outsideTotp(TEST_TOTP_SECRET).next(),
        })
      ).body.access_token,
    );
    assert.equal((await call('/administator/user/block/', { email: 'bob@example.com' }, half)).status, 403);
  });

  test('CORS preflight for the web origin', async () => {
    const res = await fetch(`${idp.url}/administator/user/info/`, {
      method: 'OPTIONS',
      headers: {
        origin: CORS_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), CORS_ORIGIN);
    assert.match(res.headers.get('access-control-allow-headers') ?? '', /Authorization/);
  });

  test('info returns the admin fields', async () => {
    const res = await call('/administator/user/info/', { email: 'BOB@example.com' }, staffToken);
    assert.equal(res.status, 200);
    const info = (await res.json()) as Record<string, unknown>;
    assert.equal(info.username, 'bob');
    assert.equal(info.email, 'bob@example.com');
    assert.equal(info.emailVerified, true);
    assert.equal(info.inviteCode, bob.referralCode);
    assert.ok(!Number.isNaN(Date.parse(String(info.created))));
    assert.ok(!Number.isNaN(Date.parse(String(info.lastLogin))), 'password grant recorded the login');
    assert.match(String(info.lastIp), /127\.0\.0\.1/);
  });

  test('400 with the error text for an unknown email', async () => {
    for (const path of [
      '/administator/user/info/',
      '/administator/user/block/',
      '/administator/user/password/change',
    ]) {
      const res = await call(path, { email: 'ghost@example.com', password: 'long enough pw' }, staffToken);
      assert.equal(res.status, 400, path);
      assert.deepEqual(await res.json(), { error: 'VALIDATION_FAILED', message: 'User not found' });
    }
  });

  test('block toggles: blocked user cannot sign in or refresh, market account flagged; unblock restores', async () => {
    const browser = new Browser(idp.url);
    const tokens = await codeFlowSignIn(config, browser, {
      email: 'bob@example.com',
      password: 'bob password',
    });

    const blockRes = await call('/administator/user/block/', { email: 'bob@example.com' }, staffToken);
    assert.equal(blockRes.status, 200);
    assert.deepEqual(await blockRes.json(), { blocked: true, email: 'bob@example.com' });
    const acc = await db.query<{ blocked: boolean }>('SELECT blocked FROM accounts WHERE user_id = $1', [
      bob.id,
    ]);
    assert.equal(acc[0]?.blocked, true);

    await assert.rejects(
      oidc.refreshTokenGrant(config, tokens.refresh_token!),
      (e: oidc.ResponseBodyError) => {
        assert.equal(e.error, 'invalid_grant');
        return true;
      },
    );
    const pw = await passwordGrant(idp.url, { username: 'bob@example.com', password: 'bob password' });
    assert.equal(pw.status, 400);
    assert.equal(pw.body.error_description, 'Your account is blocked. Contact support.');

    // The old browser session is gone too: the sign-in page comes back and refuses him.
    const verifier = oidc.randomPKCECodeVerifier();
    const page = await browser.go(
      oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT_URI,
        scope: 'openid',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state: oidc.randomState(),
      }).href,
    );
    const html = await page.res.text();
    assert.match(html, /Sign in/);
    const refused = await browser.submit(formAction(html), html, {
      email: 'bob@example.com',
      password: 'bob password',
    });
    assert.match(await refused.res.text(), /Your account is blocked\. Contact support\./);

    const unblockRes = await call('/administator/user/block/', { email: 'bob@example.com' }, staffToken);
    assert.deepEqual(await unblockRes.json(), { blocked: false, email: 'bob@example.com' });
    const acc2 = await db.query<{ blocked: boolean }>('SELECT blocked FROM accounts WHERE user_id = $1', [
      bob.id,
    ]);
    assert.equal(acc2[0]?.blocked, false);
    const again = await passwordGrant(idp.url, { username: 'bob@example.com', password: 'bob password' });
    assert.equal(again.status, 200);
  });

  test('block works when the market account does not exist yet (path without trailing slash too)', async () => {
    await ensureUser(db, { email: 'noaccount@example.com', password: 'no account pw' });
    const res = await call('/administator/user/block', { email: 'noaccount@example.com' }, staffToken);
    assert.deepEqual(await res.json(), { blocked: true, email: 'noaccount@example.com' });
  });

  test('password change sets the password and revokes grants', async () => {
    await ensureUser(db, { email: 'carol@example.com', password: 'carol password' });
    const tokens = await codeFlowSignIn(config, new Browser(idp.url), {
      email: 'carol@example.com',
      password: 'carol password',
    });
    const weak = await call(
      '/administator/user/password/change',
      { email: 'carol@example.com', password: 'short' },
      staffToken,
    );
    assert.equal(weak.status, 400);
    assert.deepEqual(await weak.json(), {
      error: 'VALIDATION_FAILED',
      message: 'Password must be at least 8 characters.',
    });
    const res = await call(
      '/administator/user/password/change',
      { email: 'carol@example.com', password: 'set by staff 1' },
      staffToken,
    );
    assert.equal(res.status, 200);
    assert.equal(
      (await passwordGrant(idp.url, { username: 'carol@example.com', password: 'carol password' })).status,
      400,
    );
    assert.equal(
      (await passwordGrant(idp.url, { username: 'carol@example.com', password: 'set by staff 1' })).status,
      200,
    );
    await assert.rejects(oidc.refreshTokenGrant(config, tokens.refresh_token!));
  });
});
