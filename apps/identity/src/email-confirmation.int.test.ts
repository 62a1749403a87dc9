/**
 * The address confirmation the market API enforces (issue 36 item 7): the access token says
 * whether the address is confirmed (`email_verified`), a refreshed token says so once the mailed
 * link was opened, and a signed-in user can have the link sent again, a few times an hour.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS } from '@pm/contracts';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import * as oidc from 'openid-client';
import { ensureUser, type IdentityHandle } from './index.ts';
import { LIMITS } from './limits.ts';
import {
  Browser,
  CORS_ORIGIN,
  codeFlowSignIn,
  discoverWebClient,
  linkIn,
  type MailCatcher,
  passwordGrant,
  startIdentity,
  startMailCatcher,
} from './test-support.ts';

const claimsOf = (accessToken: string) =>
  JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;

describe('address confirmation: the token claim and the resent link', () => {
  let db: TestDatabase;
  let mail: MailCatcher;
  let idp: IdentityHandle;
  let config: oidc.Configuration;

  /** `POST /dbconnections/verification_email` as the app calls it (CORS origin, bearer token). */
  const resend = (token?: string) =>
    fetch(`${idp.url}${ENDPOINTS.resendVerificationEmail.path}`, {
      method: 'POST',
      headers: { origin: CORS_ORIGIN, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });

  before(async () => {
    db = await createTestDatabase('identity_email_confirmation');
    mail = await startMailCatcher();
    idp = await startIdentity(db, mail.url);
    config = await discoverWebClient(idp.url);
  });

  after(async () => {
    await idp?.close();
    await mail?.close();
    await db?.drop();
  });

  test('the token says unconfirmed until the link is opened; a refreshed token says confirmed', async () => {
    await ensureUser(db, { email: 'nina@example.com', password: 'nina password 1' });
    const signedIn = await codeFlowSignIn(config, new Browser(idp.url), {
      email: 'nina@example.com',
      password: 'nina password 1',
    });
    assert.equal(claimsOf(signedIn.access_token).email_verified, false);

    const res = await resend(signedIn.access_token);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { sent: true, email: 'nina@example.com' });
    const link = linkIn(await mail.waitFor('nina@example.com', 'Confirm your email'), '/verify-email');
    assert.equal((await fetch(link)).status, 200);

    // The web app's next refresh (or the banner's "I've confirmed") gets a token that says so.
    assert.ok(signedIn.refresh_token, 'the web client gets a refresh token');
    const refreshed = await oidc.refreshTokenGrant(config, signedIn.refresh_token);
    assert.equal(claimsOf(refreshed.access_token).email_verified, true);
    const viaPassword = await passwordGrant(idp.url, {
      username: 'nina@example.com',
      password: 'nina password 1',
    });
    assert.equal(claimsOf(String(viaPassword.body.access_token)).email_verified, true);

    // Confirmed: nothing to send.
    const again = await resend(refreshed.access_token);
    assert.equal(again.status, 200);
    assert.deepEqual(await again.json(), { sent: false, email: 'nina@example.com' });
  });

  test('a resent link replaces the older ones, and only a few go out an hour', async () => {
    await ensureUser(db, { email: 'omar@example.com', password: 'omar password 1' });
    const { body } = await passwordGrant(idp.url, {
      username: 'omar@example.com',
      password: 'omar password 1',
    });
    const token = String(body.access_token);
    const seen = mail.mails.length;
    const first = await resend(token);
    assert.equal(first.status, 200);
    const older = linkIn(await mail.waitFor('omar@example.com', 'Confirm your email', seen), '/verify-email');
    const seen2 = mail.mails.length;
    assert.equal((await resend(token)).status, 200);
    const newer = linkIn(
      await mail.waitFor('omar@example.com', 'Confirm your email', seen2),
      '/verify-email',
    );
    assert.notEqual(newer, older);
    assert.equal((await fetch(older)).status, 400, 'the older link no longer works');

    let last = newer;
    for (let i = 2; i < LIMITS.verifyMailPerUser.points; i++) {
      const before = mail.mails.length;
      assert.equal((await resend(token)).status, 200);
      last = linkIn(await mail.waitFor('omar@example.com', 'Confirm your email', before), '/verify-email');
    }
    const seen3 = mail.mails.length;
    const refused = await resend(token);
    assert.equal(refused.status, 429);
    assert.deepEqual(await refused.json(), {
      error: 'RATE_LIMITED',
      message: 'Too many attempts, try again later.',
    });
    assert.equal(mail.mails.length, seen3, 'no mail over the limit');
    assert.equal((await fetch(last)).status, 200, 'the last link sent still confirms');
  });

  test('without a valid token of this issuer the link is not sent', async () => {
    const seen = mail.mails.length;
    assert.equal((await resend()).status, 401);
    assert.equal((await resend('not-a-token')).status, 401);
    assert.equal(mail.mails.length, seen);
  });
});
