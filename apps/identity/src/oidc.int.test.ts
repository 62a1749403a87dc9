import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { ensureUser, type IdentityHandle } from './index.ts';
import {
  API_AUDIENCE,
  Browser,
  CORS_ORIGIN,
  codeFlowSignIn,
  discoverWebClient,
  formAction,
  type MailCatcher,
  outsideTotp,
  REDIRECT_URI,
  startIdentity,
  startMailCatcher,
  TEST_TOTP_SECRET,
  WEB_CLIENT_ID,
} from './test-support.ts';

describe('OpenID Connect interoperability (openid-client v6)', () => {
  let db: TestDatabase;
  let mail: MailCatcher;
  let idp: IdentityHandle;
  let config: oidc.Configuration;
  let customer: { id: string; referralCode: string };

  before(async () => {
    db = await createTestDatabase('identity_oidc');
    mail = await startMailCatcher();
    idp = await startIdentity(db, mail.url);
    customer = await ensureUser(db, {
      email: 'alice@example.com',
      password: 'alice password',
      emailVerified: true,
    });
    await ensureUser(db, {
      email: 'staff@example.com',
      password: 'staff password',
      permissions: ['read:users', 'update:accounts'],
      totpSecret: TEST_TOTP_SECRET,
    });
    config = await discoverWebClient(idp.url);
  });

  after(async () => {
    await idp?.close();
    await mail?.close();
    await db?.drop();
  });

  test('discovery advertises code + PKCE, ES256 and our endpoints', () => {
    const meta = config.serverMetadata();
    assert.equal(meta.issuer, idp.url);
    assert.deepEqual(meta.code_challenge_methods_supported, ['S256']);
    assert.ok(meta.grant_types_supported?.includes('refresh_token'));
    assert.ok(meta.grant_types_supported?.includes('password'));
    assert.ok(meta.id_token_signing_alg_values_supported?.includes('ES256'));
    assert.equal(meta.end_session_endpoint, `${idp.url}/session/end`);
  });

  test('code + PKCE: ID token and access token carry email and referral code', async () => {
    const tokens = await codeFlowSignIn(config, new Browser(idp.url), {
      email: 'alice@example.com',
      password: 'alice password',
    });
    const claims = tokens.claims();
    assert.equal(claims?.sub, customer.id);
    assert.equal(claims?.email, 'alice@example.com');
    assert.equal(claims?.referral_code, customer.referralCode);
    assert.ok(tokens.refresh_token, 'the web client gets a refresh token');
    assert.equal(tokens.expires_in, 300);

    assert.deepEqual(decodeProtectedHeader(tokens.access_token), {
      alg: 'ES256',
      typ: 'at+jwt',
      kid: idp.jwks.keys[0] && (idp.jwks.keys[0] as { kid: string }).kid,
    });
    const { payload } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(`${idp.url}/jwks`)), {
      issuer: idp.url,
      audience: API_AUDIENCE,
      algorithms: ['ES256'],
      typ: 'at+jwt',
    });
    assert.equal(payload.sub, customer.id);
    assert.equal(payload.aud, API_AUDIENCE);
    assert.equal(payload.client_id, WEB_CLIENT_ID);
    assert.deepEqual(payload.permissions, []);
    assert.equal(payload.email, 'alice@example.com');
    assert.equal(payload.referral_code, customer.referralCode);
    assert.equal((payload.exp ?? 0) - (payload.iat ?? 0), 300);
  });

  test('staff get read:users and update:accounts in the access token', async () => {
    const tokens = await codeFlowSignIn(config, new Browser(idp.url), {
      email: 'staff@example.com',
      password: 'staff password',
      totp: outsideTotp(TEST_TOTP_SECRET),
    });
    const { payload } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(`${idp.url}/jwks`)), {
      issuer: idp.url,
      audience: API_AUDIENCE,
    });
    assert.deepEqual(payload.permissions, ['read:users', 'update:accounts']);
  });

  test('userinfo answers a standard client that asks for no resource, after refresh too', async () => {
    assert.equal(config.serverMetadata().userinfo_endpoint, `${idp.url}/me`);
    const tokens = await codeFlowSignIn(
      config,
      new Browser(idp.url),
      { email: 'alice@example.com', password: 'alice password' },
      {},
      null,
    );
    const expected = {
      sub: customer.id,
      email: 'alice@example.com',
      email_verified: true,
      referral_code: customer.referralCode,
    };
    assert.deepEqual(await oidc.fetchUserInfo(config, tokens.access_token, customer.id), expected);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    assert.deepEqual(await oidc.fetchUserInfo(config, refreshed.access_token, customer.id), expected);
  });

  test('an access token for the market API is not a userinfo token (RFC 8707 audience)', async () => {
    const tokens = await codeFlowSignIn(config, new Browser(idp.url), {
      email: 'alice@example.com',
      password: 'alice password',
    });
    const res = await fetch(`${idp.url}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /invalid_token/);
  });

  test('refresh tokens rotate; reusing an old one revokes the whole family', async () => {
    const first = await codeFlowSignIn(config, new Browser(idp.url), {
      email: 'alice@example.com',
      password: 'alice password',
    });
    const rt1 = first.refresh_token!;
    const second = await oidc.refreshTokenGrant(config, rt1);
    const rt2 = second.refresh_token!;
    assert.ok(rt2 && rt2 !== rt1, 'a new refresh token each time');
    assert.ok(second.access_token);
    const third = await oidc.refreshTokenGrant(config, rt2);
    const rt3 = third.refresh_token!;
    assert.notEqual(rt3, rt2);

    await assert.rejects(oidc.refreshTokenGrant(config, rt1), (e: oidc.ResponseBodyError) => {
      assert.equal(e.error, 'invalid_grant');
      return true;
    });
    // The newest token died with the family.
    await assert.rejects(oidc.refreshTokenGrant(config, rt3), (e: oidc.ResponseBodyError) => {
      assert.equal(e.error, 'invalid_grant');
      return true;
    });
  });

  test('a second sign-in in the same browser is silent (session); the app signs out without a question', async () => {
    const browser = new Browser(idp.url);
    const tokens = await codeFlowSignIn(config, browser, {
      email: 'alice@example.com',
      password: 'alice password',
    });
    // Same browser again with prompt=none: no page, straight back to the client with a code.
    const state = oidc.randomState();
    const verifier = oidc.randomPKCECodeVerifier();
    const again = await browser.go(
      oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT_URI,
        scope: 'openid email',
        prompt: 'none',
        state,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      }).href,
    );
    assert.ok(again.url.startsWith(REDIRECT_URI) && again.url.includes('code='), again.url);

    // Asked without a hint (anyone's link could do that), the sign-in host asks first.
    const asked = await (await browser.go(`${idp.url}/session/end`)).res.text();
    assert.match(asked, /Do you want to sign out\?/);
    // The app's own request carries its ID token: no question, the page submits itself at once.
    const logoutUrl = oidc.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: 'http://127.0.0.1:9/app',
    });
    const page = await browser.go(logoutUrl.href);
    const html = await page.res.text();
    assert.doesNotMatch(html, /Do you want to sign out\?/);
    assert.match(html, /<input type="hidden" name="logout" value="yes" form="op\.logoutForm">/);
    assert.match(html, /<script src="\/assets\/logout\.js"><\/script>/);
    assert.match(page.res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const script = await fetch(`${idp.url}/assets/logout.js`);
    assert.match(script.headers.get('content-type') ?? '', /javascript/);
    assert.match(await script.text(), /getElementById\('op\.logoutForm'\)\.submit\(\)/);
    // What the script does: post the form with the field that ends the whole session.
    const out = await browser.submit(formAction(html), html, { logout: 'yes' });
    assert.equal(out.url, 'http://127.0.0.1:9/app');
    const afterLogout = await browser.go(
      oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT_URI,
        scope: 'openid',
        prompt: 'none',
        state,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      }).href,
    );
    assert.match(afterLogout.url, /error=login_required/);
    await assert.rejects(
      oidc.refreshTokenGrant(config, tokens.refresh_token!),
      (e: oidc.ResponseBodyError) => {
        assert.equal(e.error, 'invalid_grant');
        return true;
      },
    );
  });

  test('wrong password shows the specific error on the sign-in page', async () => {
    const browser = new Browser(idp.url);
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
    const csp = page.res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(page.res.headers.get('x-content-type-options'), 'nosniff');
    assert.ok(page.res.headers.get('referrer-policy'));
    assert.doesNotMatch(html, /<script/i);
    const wrong = await browser.submit(formAction(html), html, {
      email: 'alice@example.com',
      password: 'nope nope',
    });
    assert.equal(wrong.res.status, 400);
    assert.match(await wrong.res.text(), /Wrong email or password\./);
    // A form post without the CSRF field is refused.
    const forged = await browser.go(new URL(formAction(html), idp.url).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=alice%40example.com&password=alice+password',
    });
    assert.equal(forged.res.status, 403);
  });

  test('the token endpoint answers CORS for the web origin only', async () => {
    const allowed = await fetch(`${idp.url}/token`, {
      method: 'OPTIONS',
      headers: { origin: CORS_ORIGIN, 'access-control-request-method': 'POST' },
    });
    assert.equal(allowed.headers.get('access-control-allow-origin'), CORS_ORIGIN);
    const other = await fetch(`${idp.url}/token`, {
      method: 'POST',
      headers: { origin: 'http://evil.test', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&refresh_token=x&client_id=web',
    });
    assert.equal(other.headers.get('access-control-allow-origin'), null);
  });

  test('expired interactions and bad authorization requests get our own error page', async () => {
    const lost = await fetch(`${idp.url}/interaction/does-not-exist`);
    assert.equal(lost.status, 400);
    assert.match(await lost.text(), /Your sign-in session expired/);
    const bad = await fetch(`${idp.url}/auth?client_id=nobody&response_type=code&scope=openid`);
    assert.equal(bad.status, 400);
    const html = await bad.text();
    assert.match(html, /Something went wrong/);
    assert.doesNotMatch(html, /<script/i);
  });

  test('the sign-in host has a favicon, linked from its pages', async () => {
    for (const path of ['/favicon.svg', '/favicon.ico']) {
      const res = await fetch(`${idp.url}${path}`);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('content-type'), 'image/svg+xml', path);
      assert.match(await res.text(), /^<svg /, path);
    }
    const page = await (await fetch(`${idp.url}/forgot`)).text();
    assert.match(page, /<link rel="icon" href="\/favicon\.svg" type="image\/svg\+xml">/);
  });

  test('health endpoint', async () => {
    const res = await fetch(`${idp.url}/healthz`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ok: true });
  });
});
