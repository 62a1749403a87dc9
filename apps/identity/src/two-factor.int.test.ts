/**
 * Two-factor sign-in (issue 37 item 1) from outside: the pages driven like a browser, the codes
 * made by otplib (an authenticator the product does not use for its own check), the tokens read
 * with openid-client and jose. Every attempt a hostile holder of the password would make is here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { ensureUser, type IdentityHandle } from './index.ts';
import { OTP_REQUIRED } from './password-grant.ts';
import {
  API_AUDIENCE,
  Browser,
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

const STAFF = ['read:users', 'update:accounts'];

describe('two-factor sign-in (TOTP)', () => {
  let db: TestDatabase;
  let mail: MailCatcher;
  let idp: IdentityHandle;
  let config: oidc.Configuration;
  let staffToken: string;

  const permissionsOf = async (token: string) =>
    (
      await jwtVerify(token, createRemoteJWKSet(new URL(`${idp.url}/jwks`)), {
        issuer: idp.url,
        audience: API_AUDIENCE,
      })
    ).payload.permissions;
  const admin = (path: string, body: unknown, token = staffToken) =>
    fetch(`${idp.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });

  /** Starts an authorization request (as the web app does) and submits the password; the next page. */
  async function passwordStep(
    browser: Browser,
    email: string,
    password: string,
    extra: Record<string, string> = {},
  ) {
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid email',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
      resource: API_AUDIENCE,
      ...extra,
    });
    const login = await browser.go(url.href);
    const html = await login.res.text();
    return browser.submit(formAction(html), html, { email, password });
  }

  before(async () => {
    db = await createTestDatabase('identity_two_factor');
    mail = await startMailCatcher();
    // Low limits so the slow-down shows within a test.
    idp = await startIdentity(db, mail.url, {
      rateLimits: { failsPerEmailIp: { points: 4, duration: 3600 }, account: { freeFailures: 3 } },
    });
    config = await discoverWebClient(idp.url);
    await ensureUser(db, {
      email: 'staff@example.com',
      password: 'staff password',
      permissions: [...STAFF, 'update:staff'],
      totpSecret: TEST_TOTP_SECRET,
    });
    staffToken = String(
      (
        await passwordGrant(idp.url, {
          username: 'staff@example.com',
          password: 'staff password',
          otp: await outsideTotp(TEST_TOTP_SECRET).next(),
        })
      ).body.access_token,
    );
  });

  after(async () => {
    await idp?.close();
    await mail?.close();
    await db?.drop();
  });

  test('a customer turns it on (QR, secret, code, ten recovery codes once), then signs in with a code', async () => {
    await ensureUser(db, { email: 'carol@example.com', password: 'carol password', emailVerified: true });
    const before = await codeFlowSignIn(config, new Browser(idp.url), {
      email: 'carol@example.com',
      password: 'carol password',
    });
    const browser = new Browser(idp.url);
    const manage = await passwordStep(browser, 'carol@example.com', 'carol password', {
      prompt: 'login',
      two_factor: 'manage',
    });
    assert.match(await manage.res.text(), /Two-factor sign-in is <strong>off<\/strong>/);
    const enrol = await browser.go(`${manage.url.replace(/\/login$/, '')}/enrol`);
    const page = await enrol.res.text();
    assert.match(page, /<svg[^>]*viewBox/, 'the QR code is on the page');
    const secret = /data-testid="totp-secret">([A-Z2-7]+)</.exec(page)?.[1] ?? '';
    assert.equal(secret.length, 32);
    const wrong = await browser.submit(formAction(page), page, { code: '000000' });
    assert.equal(wrong.res.status, 400);
    const wrongPage = await wrong.res.text();
    const totp = outsideTotp(secret);
    const done = await browser.submit(formAction(wrongPage), wrongPage, { code: await totp.next() });
    const codesPage = await done.res.text();
    const codes = [...codesPage.matchAll(/<li>([A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4})<\/li>/g)].map(
      (m) => m[1] ?? '',
    );
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    const stored = await db.query<{ h: string[] }>(
      `SELECT totp_recovery_hashes AS h FROM users WHERE email = 'carol@example.com'`,
    );
    assert.equal(stored[0]?.h.length, 10);
    assert.ok(!stored[0]?.h.some((h) => codes.includes(h)), 'only hashes are kept');
    const onward = await browser.submit(formAction(codesPage), codesPage, {});
    assert.ok(
      onward.url.startsWith(REDIRECT_URI),
      `continue returns to the app: ${onward.url} ${(await onward.res.text()).slice(0, 800)}`,
    );

    // The change ended the older session's refresh token.
    await assert.rejects(oidc.refreshTokenGrant(config, before.refresh_token ?? ''));

    // Sign-in now asks for the code; a wrong one, then the right one.
    const b2 = new Browser(idp.url);
    const codeStep = await passwordStep(b2, 'carol@example.com', 'carol password');
    const codeHtml = await codeStep.res.text();
    assert.match(codeHtml, /6-digit code/);
    const bad = await b2.submit(formAction(codeHtml), codeHtml, { code: '123456' });
    assert.equal(bad.res.status, 400);
    const badHtml = await bad.res.text();
    const code = await totp.next();
    const ok = await b2.submit(formAction(badHtml), badHtml, { code });
    assert.ok(ok.url.startsWith(REDIRECT_URI));

    // The same code again, in another browser: refused (a step is never accepted twice).
    const b3 = new Browser(idp.url);
    const again = await passwordStep(b3, 'carol@example.com', 'carol password');
    const againHtml = await again.res.text();
    const replay = await b3.submit(formAction(againHtml), againHtml, { code });
    assert.equal(replay.res.status, 400);
    // A recovery code signs in once, never twice.
    const replayHtml = await replay.res.text();
    const rec = await b3.submit(formAction(replayHtml), replayHtml, { code: codes[0]?.toLowerCase() ?? '' });
    assert.ok(rec.url.startsWith(REDIRECT_URI), 'a recovery code works, in any case');
    const b4 = new Browser(idp.url);
    const b4Html = await (await passwordStep(b4, 'carol@example.com', 'carol password')).res.text();
    assert.equal((await b4.submit(formAction(b4Html), b4Html, { code: codes[0] ?? '' })).res.status, 400);

    // The password grant needs the code, once.
    const none = await passwordGrant(idp.url, { username: 'carol@example.com', password: 'carol password' });
    assert.equal(none.status, 400);
    assert.equal(none.body.error_description, OTP_REQUIRED);
    const otp = await totp.next();
    assert.equal(
      (await passwordGrant(idp.url, { username: 'carol@example.com', password: 'carol password', otp }))
        .status,
      200,
    );
    assert.equal(
      (await passwordGrant(idp.url, { username: 'carol@example.com', password: 'carol password', otp }))
        .status,
      400,
      'a used code is refused',
    );
  });

  test('wrong codes are rate limited like passwords, even with the right password each time', async () => {
    await ensureUser(db, {
      email: 'dave@example.com',
      password: 'dave password',
      totpSecret: TEST_TOTP_SECRET,
    });
    const attempt = (otp: string) =>
      passwordGrant(idp.url, { username: 'dave@example.com', password: 'dave password', otp });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await attempt(String(100000 + i))).status);
    assert.deepEqual(statuses.slice(0, 3), [400, 400, 400], 'three free failures');
    assert.deepEqual(statuses.slice(3), [429, 429, 429], 'then the account slows down');
    const right = await attempt(await outsideTotp(TEST_TOTP_SECRET).next());
    assert.equal(right.status, 429, 'even the right code waits its turn');
    assert.ok(Number(right.retryAfter) >= 1);
  });

  test('a staff account without it reaches nothing of the admin area until it enrols', async () => {
    await ensureUser(db, { email: 'newstaff@example.com', password: 'new staff pw', permissions: STAFF });
    // The password grant works, but its token carries no staff permission.
    const grant = await passwordGrant(idp.url, {
      username: 'newstaff@example.com',
      password: 'new staff pw',
    });
    assert.equal(grant.status, 200);
    assert.deepEqual(await permissionsOf(String(grant.body.access_token)), []);
    assert.equal(
      (
        await admin(
          '/administator/user/info/',
          { email: 'staff@example.com' },
          String(grant.body.access_token),
        )
      ).status,
      403,
    );
    // The sign-in sends it to enrolment; it cannot go on without it.
    const browser = new Browser(idp.url);
    const step = await passwordStep(browser, 'newstaff@example.com', 'new staff pw');
    const page = await step.res.text();
    assert.match(page, /Staff accounts must use two-factor sign-in/);
    assert.match(step.url, /\/enrol$/);
    const skip = await browser.submit(step.url.replace(/enrol$/, 'continue'), page, {});
    assert.ok(!skip.url.startsWith(REDIRECT_URI), 'no way past the enrolment');
    const secret = /data-testid="totp-secret">([A-Z2-7]+)</.exec(page)?.[1] ?? '';
    const done = await browser.submit(formAction(page), page, { code: await outsideTotp(secret).next() });
    const codesPage = await done.res.text();
    const onward = await browser.submit(formAction(codesPage), codesPage, {});
    assert.ok(onward.url.startsWith(REDIRECT_URI));
    const staffTokens = await codeFlowSignIn(config, new Browser(idp.url), {
      email: 'newstaff@example.com',
      password: 'new staff pw',
      totp: { next: () => outsideTotp(secret).at(Date.now() + 30_000) },
    });
    assert.deepEqual(await permissionsOf(staffTokens.access_token), STAFF);
  });

  test("staff reset a customer's 2FA with a reason (audited); a staff target needs update:staff", async () => {
    const user = await ensureUser(db, {
      email: 'erin@example.com',
      password: 'erin password',
      totpSecret: TEST_TOTP_SECRET,
    });
    const res = await admin('/administator/user/two-factor/reset', {
      email: 'erin@example.com',
      reason: 'lost phone',
    });
    assert.equal(res.status, 200);
    const rows = await db.query<{ action: string; reason: string; after: { twoFactor: boolean } }>(
      'SELECT action, reason, after FROM audit_log WHERE target_id = $1',
      [user.id],
    );
    assert.deepEqual(rows, [
      { action: 'user.twoFactorReset', reason: 'lost phone', after: { twoFactor: false } },
    ]);
    const info = await (await admin('/administator/user/info/', { email: 'erin@example.com' })).json();
    assert.equal((info as { twoFactor: boolean }).twoFactor, false);
    assert.equal(
      (await passwordGrant(idp.url, { username: 'erin@example.com', password: 'erin password' })).status,
      200,
      'signs in with the password alone again',
    );
    // Ordinary staff (no update:staff) cannot reset a staff member's second factor.
    await ensureUser(db, {
      email: 'plain@example.com',
      password: 'plain staff pw',
      permissions: STAFF,
      totpSecret: TEST_TOTP_SECRET,
    });
    const plainToken = String(
      (
        await passwordGrant(idp.url, {
          username: 'plain@example.com',
          password: 'plain staff pw',
          otp: await outsideTotp(TEST_TOTP_SECRET).next(),
        })
      ).body.access_token,
    );
    const refused = await admin(
      '/administator/user/two-factor/reset',
      { email: 'staff@example.com' },
      plainToken,
    );
    assert.equal(refused.status, 403);
  });
});
