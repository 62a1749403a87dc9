import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import * as oidc from 'openid-client';
import { ensureUser, type IdentityHandle } from './index.ts';
import {
  API_AUDIENCE,
  APP_URL,
  Browser,
  CORS_ORIGIN,
  codeFlowSignIn,
  discoverWebClient,
  formAction,
  linkIn,
  type MailCatcher,
  passwordGrant,
  REDIRECT_URI,
  startIdentity,
  startMailCatcher,
} from './test-support.ts';

async function userRow(db: TestDatabase, email: string) {
  const rows = await db.query<{
    id: string;
    invited_by: string | null;
    email_verified: boolean;
    password_hash: string;
  }>('SELECT id, invited_by, email_verified, password_hash FROM users WHERE email = $1', [email]);
  return rows[0];
}

async function authorizationStart(config: oidc.Configuration, extra: Record<string, string> = {}) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid email offline_access',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...extra,
  });
  return { url: url.href, verifier, state };
}

describe('sign-up, email verification and password reset', () => {
  let db: TestDatabase;
  let mail: MailCatcher;
  let idp: IdentityHandle;
  let config: oidc.Configuration;
  let inviter: { id: string; referralCode: string };

  before(async () => {
    db = await createTestDatabase('identity_signup');
    mail = await startMailCatcher();
    idp = await startIdentity(db, mail.url);
    inviter = await ensureUser(db, {
      email: 'inviter@example.com',
      password: 'inviter password',
      emailVerified: true,
    });
    config = await discoverWebClient(idp.url);
  });

  after(async () => {
    await idp?.close();
    await mail?.close();
    await db?.drop();
  });

  test('argon2id with m=19456, t=2, p=1', async () => {
    const row = await userRow(db, 'inviter@example.com');
    assert.match(row?.password_hash ?? '', /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  /** The access token's claims. */
  const claimsOf = (accessToken: string) =>
    JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString()) as Record<
      string,
      unknown
    >;

  test('invite link /signup?ref=: check-your-email answer, pending code, signed in once confirmed', async () => {
    const browser = new Browser(idp.url);
    const page = await browser.go(`${idp.url}/signup?ref=${inviter.referralCode}`);
    const html = await page.res.text();
    assert.equal(page.res.status, 200);
    assert.match(html, new RegExp(`Invited with code <strong>${inviter.referralCode}</strong>`));
    const done = await browser.submit(formAction(html), html, {
      email: 'New.User@Example.com',
      password: 'new user password',
    });
    assert.equal(done.res.status, 200);
    const doneHtml = await done.res.text();
    assert.match(doneHtml, /Check your email/);
    assert.ok(doneHtml.includes(`href="${APP_URL}"`), 'continues to the app');
    const row = await userRow(db, 'new.user@example.com');
    assert.equal(row?.invited_by, inviter.referralCode, 'kept, pending');
    assert.equal(row?.email_verified, false);

    // Before the address is confirmed the app's authorization asks for the password, and a token
    // carries no referrer yet.
    const early = await authorizationStart(config);
    const signIn = await browser.go(early.url);
    assert.match(await signIn.res.text(), /Sign in/);
    const unconfirmed = await codeFlowSignIn(config, new Browser(idp.url), {
      email: 'new.user@example.com',
      password: 'new user password',
    });
    assert.equal(claimsOf(unconfirmed.access_token).referred_by, undefined);

    // The verification mail confirms the address once.
    const verify = await mail.waitFor('new.user@example.com', 'Confirm your email');
    assert.match(verify.text, /If you did not create an account, ignore this email/);
    const link = linkIn(verify, '/verify-email');
    const first = await browser.go(link);
    assert.equal(first.res.status, 200);
    assert.match(await first.res.text(), /Email confirmed/);
    assert.equal((await userRow(db, 'new.user@example.com'))?.email_verified, true);
    const second = await fetch(link);
    assert.equal(second.status, 400);

    // Now the app's authorization signs the new user in without retyping, and the referrer counts.
    const start = await authorizationStart(config, { resource: API_AUDIENCE });
    const back = await browser.go(start.url);
    assert.ok(back.url.startsWith(REDIRECT_URI), `expected a redirect to the client, got ${back.url}`);
    const tokens = await oidc.authorizationCodeGrant(
      config,
      new URL(back.url),
      { pkceCodeVerifier: start.verifier, expectedState: start.state },
      { resource: API_AUDIENCE },
    );
    assert.equal(tokens.claims()?.sub, row?.id);
    assert.equal(claimsOf(tokens.access_token).referred_by, inviter.referralCode);
  });

  test('sign-up answers a registered address exactly as a new one and mails its owner instead', async () => {
    const browser = new Browser(idp.url);
    const start = await authorizationStart(config, { ref: inviter.referralCode, resource: API_AUDIENCE });
    const login = await browser.go(start.url);
    const loginHtml = await login.res.text();
    const signupPath = /href="(\/interaction\/[^"]+\/signup)"/.exec(loginHtml)?.[1];
    assert.ok(signupPath, 'the sign-in page links to sign-up');
    const signup = await browser.go(`${idp.url}${signupPath}`);
    const html = await signup.res.text();
    assert.match(html, new RegExp(`value="${inviter.referralCode}"`));

    const before = mail.mails.length;
    const taken = await browser.submit(formAction(html), html, {
      email: 'inviter@example.com',
      password: 'whatever123',
    });
    const takenHtml = await taken.res.text();
    const takenCookies = taken.res.headers.getSetCookie().map((c) => c.split('=')[0]);

    const short = await browser.submit(formAction(html), html, {
      email: 'second@example.com',
      password: 'short',
    });
    assert.equal(short.res.status, 400);
    assert.match(await short.res.text(), /Password must be at least 8 characters\./);

    const done = await browser.submit(formAction(html), html, {
      email: 'second@example.com',
      password: 'second password',
    });
    const doneHtml = await done.res.text();
    assert.equal(taken.res.status, done.res.status);
    assert.equal(done.res.status, 200);
    assert.equal(takenHtml, doneHtml, 'the same page for a registered and a new address');
    assert.deepEqual(
      takenCookies,
      done.res.headers.getSetCookie().map((c) => c.split('=')[0]),
    );
    assert.match(doneHtml, /Check your email/);
    assert.doesNotMatch(doneHtml, /already exists/);

    // The owner is told, with the way to sign in or reset; no second account, no verify link.
    const notice = await mail.waitFor('inviter@example.com', 'Someone tried to sign up', before);
    assert.match(notice.text, /you already have one/);
    assert.match(notice.text, new RegExp(`${idp.url}/forgot`));
    assert.equal(
      mail.mails.slice(before).filter((m) => m.to === 'inviter@example.com' && m.subject.includes('Confirm'))
        .length,
      0,
    );
    assert.equal((await db.query('SELECT 1 FROM users WHERE email = $1', ['inviter@example.com'])).length, 1);

    // The new user confirms (in the same browser) and goes on with the authorization request.
    const verify = await mail.waitFor('second@example.com', 'Confirm your email', before);
    await browser.go(linkIn(verify, '/verify-email'));
    const continueUrl = /<a class="button" href="([^"]+)"/.exec(doneHtml)?.[1] ?? '';
    const back = await browser.go(new URL(continueUrl, idp.url).href);
    assert.ok(back.url.startsWith(REDIRECT_URI), back.url);
    const tokens = await oidc.authorizationCodeGrant(
      config,
      new URL(back.url),
      { pkceCodeVerifier: start.verifier, expectedState: start.state },
      { resource: API_AUDIENCE },
    );
    assert.ok(tokens.refresh_token);
    assert.equal((await userRow(db, 'second@example.com'))?.invited_by, inviter.referralCode);
    // The market API learns the inviter from the access token (the address is confirmed).
    assert.equal(claimsOf(tokens.access_token).referred_by, inviter.referralCode);
  });

  test('referral by pre-registration: a reset by the address owner drops the pending invite code', async () => {
    // The attacker signs up the victim's address with their own invite code.
    const attacker = new Browser(idp.url);
    const page = await attacker.go(`${idp.url}/signup?ref=${inviter.referralCode}`);
    const html = await page.res.text();
    const before = mail.mails.length;
    await attacker.submit(formAction(html), html, {
      email: 'victim@example.com',
      password: 'attacker password',
    });
    assert.equal((await userRow(db, 'victim@example.com'))?.invited_by, inviter.referralCode);
    const verifyLink = linkIn(
      await mail.waitFor('victim@example.com', 'Confirm your email', before),
      '/verify-email',
    );
    // The attacker's token never names them: the address is not confirmed.
    const attackerToken = await passwordGrant(idp.url, {
      username: 'victim@example.com',
      password: 'attacker password',
    });
    assert.equal(claimsOf(String(attackerToken.body.access_token)).referred_by, undefined);

    // The victim recovers the account through "forgot password".
    await fetch(`${idp.url}/dbconnections/change_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'victim@example.com' }),
    });
    const resetLink = linkIn(
      await mail.waitFor('victim@example.com', 'Reset your', before),
      '/reset-password',
    );
    const victim = new Browser(idp.url);
    const form = await victim.go(resetLink);
    const formHtml = await form.res.text();
    await victim.submit(formAction(formHtml), formHtml, { password: 'victim own password' });

    const row = await userRow(db, 'victim@example.com');
    assert.equal(row?.email_verified, true);
    assert.equal(row?.invited_by, null, 'the pending code is gone');
    assert.equal((await fetch(verifyLink)).status, 400, "the sign-up's link died with the reset");
    const victimToken = await passwordGrant(idp.url, {
      username: 'victim@example.com',
      password: 'victim own password',
    });
    assert.equal(victimToken.status, 200);
    assert.equal(claimsOf(String(victimToken.body.access_token)).referred_by, undefined);
  });

  test('an unknown ref code is not stored', async () => {
    const browser = new Browser(idp.url);
    const page = await browser.go(`${idp.url}/signup?ref=NOSUCHCODE`);
    const html = await page.res.text();
    await browser.submit(formAction(html), html, { email: 'third@example.com', password: 'third password' });
    const row = await userRow(db, 'third@example.com');
    assert.ok(row);
    assert.equal(row.invited_by, null);
  });

  test('change_code: same answer for unknown email, mail only for a real account', async () => {
    const before = mail.mails.length;
    const ask = (email: string) =>
      fetch(`${idp.url}/dbconnections/change_code`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: CORS_ORIGIN },
        body: JSON.stringify({ email }),
      });
    const unknown = await ask('nobody@example.com');
    const known = await ask('inviter@example.com');
    assert.equal(unknown.status, 200);
    assert.equal(known.status, 200);
    assert.equal(known.headers.get('access-control-allow-origin'), CORS_ORIGIN);
    const [a, b] = [await unknown.text(), await known.text()];
    assert.equal(a, b);
    assert.equal(a, "We've just sent you an email to reset your password.");
    await mail.waitFor('inviter@example.com', 'Reset your', before);
    assert.equal(mail.mails.slice(before).filter((m) => m.to === 'nobody@example.com').length, 0);
  });

  test('reset via the mailed link: old password stops, new works, link is single use, sessions end', async () => {
    await ensureUser(db, { email: 'resetme@example.com', password: 'old password 1' });
    const signedIn = await codeFlowSignIn(config, new Browser(idp.url), {
      email: 'resetme@example.com',
      password: 'old password 1',
    });

    // The forgot page (HTML form) sends the same mail.
    const browser = new Browser(idp.url);
    const before = mail.mails.length;
    const forgot = await browser.go(`${idp.url}/forgot`);
    const forgotHtml = await forgot.res.text();
    const sent = await browser.submit(formAction(forgotHtml), forgotHtml, { email: 'resetme@example.com' });
    assert.match(await sent.res.text(), /We&#39;ve just sent you an email to reset your password\./);
    const resetMail = await mail.waitFor('resetme@example.com', 'Reset your', before);
    const link = linkIn(resetMail, '/reset-password');

    const form = await browser.go(link);
    assert.equal(form.res.status, 200);
    const formHtml = await form.res.text();
    const weak = await browser.submit(formAction(formHtml), formHtml, { password: 'short' });
    assert.match(await weak.res.text(), /Password must be at least 8 characters\./);
    const done = await browser.submit(formAction(formHtml), formHtml, { password: 'brand new password' });
    assert.equal(done.res.status, 200);
    assert.match(await done.res.text(), /Your password has been changed/);

    const old = await passwordGrant(idp.url, { username: 'resetme@example.com', password: 'old password 1' });
    assert.equal(old.status, 400);
    const fresh = await passwordGrant(idp.url, {
      username: 'resetme@example.com',
      password: 'brand new password',
    });
    assert.equal(fresh.status, 200);

    const reused = await browser.go(link);
    assert.equal(reused.res.status, 400);
    assert.match(await reused.res.text(), /invalid or has expired/);
    const replay = await browser.submit(formAction(formHtml), formHtml, { password: 'another password' });
    assert.match(await replay.res.text(), /invalid or has expired/);

    await assert.rejects(
      oidc.refreshTokenGrant(config, signedIn.refresh_token!),
      (e: oidc.ResponseBodyError) => {
        assert.equal(e.error, 'invalid_grant');
        return true;
      },
    );
    const tva = await db.query<{ tokens_valid_after: Date }>(
      'SELECT tokens_valid_after FROM users WHERE email = $1',
      ['resetme@example.com'],
    );
    assert.ok(Date.now() - new Date(tva[0]!.tokens_valid_after).getTime() < 60_000);
  });

  test('an expired reset link is refused; only the hash is stored', async () => {
    await ensureUser(db, { email: 'late@example.com', password: 'late password 1' });
    const before = mail.mails.length;
    await fetch(`${idp.url}/dbconnections/change_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'late@example.com' }),
    });
    const link = linkIn(await mail.waitFor('late@example.com', 'Reset your', before), '/reset-password');
    const token = new URL(link).searchParams.get('token')!;
    assert.equal(token.length, 22, '128 bits, base64url');
    const stored = await db.query<{ token_hash: string; expires_at: Date }>(
      `SELECT token_hash, expires_at FROM email_tokens t JOIN users u ON u.id = t.user_id
        WHERE u.email = 'late@example.com' AND purpose = 'reset'`,
    );
    assert.equal(stored.length, 1);
    assert.notEqual(stored[0]!.token_hash, token);
    const ttlMs = new Date(stored[0]!.expires_at).getTime() - Date.now();
    assert.ok(ttlMs > 29 * 60_000 && ttlMs <= 30 * 60_000, `expires in 30 min, got ${ttlMs}`);
    await db.query(`UPDATE email_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [
      stored[0]!.token_hash,
    ]);
    const res = await fetch(link);
    assert.equal(res.status, 400);
  });
});
