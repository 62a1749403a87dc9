/**
 * The `?token=` hand-off's host side (issue 37 item 6): a one-time code only for the browser signed
 * in here, only back to the web app, redeemed once and only with the starting tab's verifier.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { ensureUser, type IdentityHandle } from './index.ts';
import {
  Browser,
  CORS_ORIGIN,
  codeFlowSignIn,
  discoverWebClient,
  type MailCatcher,
  startIdentity,
  startMailCatcher,
  WEB_CLIENT_ID,
} from './test-support.ts';

describe('hand-off codes', () => {
  let db: TestDatabase;
  let mail: MailCatcher;
  let idp: IdentityHandle;

  const pkce = () => {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
  };
  const start = (browser: Browser, challenge: string, redirect = `${CORS_ORIGIN}/my`) =>
    browser.request(
      `${idp.url}/handoff?${new URLSearchParams({
        client_id: WEB_CLIENT_ID,
        redirect_uri: redirect,
        state: 'state-0123456789abcdef',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      })}`,
    );
  const redeem = (code: string, verifier: string) =>
    fetch(`${idp.url}/handoff/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: CORS_ORIGIN },
      body: JSON.stringify({ code, code_verifier: verifier }),
    });

  before(async () => {
    db = await createTestDatabase('identity_handoff');
    mail = await startMailCatcher();
    idp = await startIdentity(db, mail.url);
    await ensureUser(db, { email: 'hana@example.com', password: 'hana password' });
  });

  after(async () => {
    await idp?.close();
    await mail?.close();
    await db?.drop();
  });

  test('a browser signed in nowhere gets login_required, never a code', async () => {
    const res = await start(new Browser(idp.url), pkce().challenge);
    assert.equal(res.status, 303);
    const back = new URL(res.headers.get('location') ?? '');
    assert.equal(back.origin, CORS_ORIGIN);
    assert.equal(back.searchParams.get('handoff_error'), 'login_required');
    assert.equal(back.searchParams.get('token'), null);
  });

  test('only back to the web app: another site gets a 400 page and no redirect', async () => {
    const browser = new Browser(idp.url);
    await codeFlowSignIn(await discoverWebClient(idp.url), browser, {
      email: 'hana@example.com',
      password: 'hana password',
    });
    const res = await start(browser, pkce().challenge, 'https://attacker.example/steal');
    assert.equal(res.status, 400);
    assert.equal(res.headers.get('location'), null);
  });

  test('a code is redeemed once, and only with the verifier of its challenge', async () => {
    const browser = new Browser(idp.url);
    await codeFlowSignIn(await discoverWebClient(idp.url), browser, {
      email: 'hana@example.com',
      password: 'hana password',
    });
    const mine = pkce();
    const res = await start(browser, mine.challenge);
    const back = new URL(res.headers.get('location') ?? '');
    assert.equal(back.pathname, '/my');
    assert.equal(back.searchParams.get('state'), 'state-0123456789abcdef');
    const code = back.searchParams.get('token') ?? '';
    assert.ok(code.length >= 43);
    // Someone who found the link but holds another verifier: refused, and the code is burnt.
    assert.equal((await redeem(code, pkce().verifier)).status, 400);
    assert.equal((await redeem(code, mine.verifier)).status, 400);

    const fresh = pkce();
    const again = new URL((await start(browser, fresh.challenge)).headers.get('location') ?? '');
    const ok = await redeem(again.searchParams.get('token') ?? '', fresh.verifier);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('access-control-allow-origin'), CORS_ORIGIN);
    const body = (await ok.json()) as { access_token: string; expires_in: number };
    assert.equal(body.access_token.split('.').length, 3);
    assert.ok(body.expires_in > 0 && body.expires_in <= 300);
    assert.equal((await redeem(again.searchParams.get('token') ?? '', fresh.verifier)).status, 400);
  });
});
