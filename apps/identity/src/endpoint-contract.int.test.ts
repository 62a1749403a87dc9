/**
 * The identity host's JSON API is part of the endpoint contract (issue 27): every route of its
 * `api` router is an operation declared in `ENDPOINTS` with `api: 'identity'`, every such operation
 * is served there (at `servedPaths`), and each answers from its declaration (the body checked by
 * its schema, the answer of the shape it declares). The host's other routes are not API operations:
 * its other routers are named below with why; oidc-provider's own protocol routes (`/auth`,
 * `/token`, `/jwks`, `/.well-known/openid-configuration`, …) are the provider's, specified by OpenID
 * Connect, and `/healthz` is a liveness probe answered before any router.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS, type Endpoint, ZErrorBody } from '@pm/contracts';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import type { z } from 'zod';
import { servedPaths } from './endpoint.ts';
import { ensureUser, type IdentityHandle, type IdentityRoute } from './index.ts';
import {
  Browser,
  CORS_ORIGIN,
  codeFlowSignIn,
  discoverWebClient,
  type MailCatcher,
  outsideTotp,
  passwordGrant,
  startIdentity,
  startMailCatcher,
  TEST_TOTP_SECRET,
  WEB_CLIENT_ID,
} from './test-support.ts';

/** The host's routers that serve no API operation, each with why. */
const NON_OPERATION_ROUTERS: Record<Exclude<IdentityRoute['router'], 'api'>, string> = {
  assets: "the sign-in pages' static stylesheet, script and icon",
  pages: 'the HTML sign-in, sign-up, forgot and reset pages: CSRF-protected forms, not JSON operations',
};
/** Where the JSON API lives (its CORS prefixes): no page may answer under them. */
const API_PREFIXES = ['/administator/', '/dbconnections/'];

const IDENTITY = (Object.values(ENDPOINTS) as Endpoint[]).filter((e) => e.api === 'identity');
const key = (method: string, path: string) => `${method} ${path}`;

describe('identity endpoint contract', () => {
  let db: TestDatabase;
  let mail: MailCatcher;
  let idp: IdentityHandle;
  let staffToken: string;

  const call = (e: Endpoint, path: string, body: unknown, token?: string) =>
    fetch(`${idp.url}${path}`, {
      method: e.method,
      headers: {
        'content-type': 'application/json',
        origin: CORS_ORIGIN,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
    });

  before(async () => {
    db = await createTestDatabase('identity_contract');
    mail = await startMailCatcher();
    idp = await startIdentity(db, mail.url);
    await ensureUser(db, {
      email: 'staff@example.com',
      password: 'staff password',
      permissions: ['read:users', 'update:accounts'],
      totpSecret: TEST_TOTP_SECRET,
    });
    await ensureUser(db, { email: 'dora@example.com', password: 'dora password', emailVerified: true });
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

  test('every route of the api router is a declared identity operation; the others are named', () => {
    assert.ok(IDENTITY.length >= 5, 'the identity operations are in ENDPOINTS');
    const declared = new Set(IDENTITY.flatMap((e) => servedPaths(e).map((p) => key(e.method, p))));
    const api = idp.routes.filter((r) => r.router === 'api').map((r) => key(r.method, r.path));
    assert.deepEqual(
      api.filter((k) => !declared.has(k)).sort(),
      [],
      'JSON routes outside the contract: declare them in packages/contracts/src/endpoints/identity.ts',
    );
    const others = idp.routes.filter((r) => r.router !== 'api');
    for (const r of others) assert.ok(r.router in NON_OPERATION_ROUTERS, `unnamed router ${r.router}`);
    assert.deepEqual(
      others.filter((r) => API_PREFIXES.some((p) => r.path.startsWith(p))),
      [],
      'a page route under the JSON API',
    );
  });

  test('every identity operation is served by the api router', () => {
    const served = new Set(idp.routes.filter((r) => r.router === 'api').map((r) => key(r.method, r.path)));
    const missing = IDENTITY.flatMap((e) => servedPaths(e).map((p) => key(e.method, p))).filter(
      (k) => !served.has(k),
    );
    assert.deepEqual(missing, [], 'declared identity operations the host does not serve');
  });

  test("each operation checks its caller, then its body by the declaration's schema", async () => {
    for (const e of IDENTITY) {
      for (const path of servedPaths(e)) {
        if (e.visibility === 'staff' || e.visibility === 'customer') {
          const anonymous = await call(e, path, {});
          assert.equal(anonymous.status, 401, path);
          assert.equal(ZErrorBody.parse(await anonymous.json()).error, 'UNAUTHENTICATED', path);
        }
        // An operation without a body has no field to get wrong.
        if (!e.body) continue;
        // The first field of the declared body, of the wrong type.
        const field = Object.keys((e.body as z.ZodObject).shape)[0] ?? 'email';
        const bad = await call(e, path, { [field]: 42 }, staffToken);
        assert.equal(bad.status, 400, path);
        const body = ZErrorBody.parse(await bad.json());
        assert.equal(body.field, field, path);
        assert.equal(body.error, 'VALIDATION_FAILED', path);
        assert.match(body.message, new RegExp(`^${field}: `), path);
      }
    }
  });

  test('each operation answers as its declaration says', async () => {
    const bodies: Record<string, unknown | (() => Promise<unknown>)> = {
      requestPasswordReset: { email: 'dora@example.com' },
      resetUserTwoFactor: { email: 'dora@example.com', reason: 'contract test' },
      // A real hand-off code: dora's browser signed in, then the hand-off's middle leg.
      redeemHandoff: async () => {
        const browser = new Browser(idp.url);
        await codeFlowSignIn(await discoverWebClient(idp.url), browser, {
          email: 'dora@example.com',
          password: 'set by staff 9',
        });
        const verifier = randomBytes(32).toString('base64url');
        const q = new URLSearchParams({
          client_id: WEB_CLIENT_ID,
          redirect_uri: `${CORS_ORIGIN}/`,
          state: randomBytes(16).toString('base64url'),
          code_challenge: createHash('sha256').update(verifier).digest('base64url'),
          code_challenge_method: 'S256',
        });
        const res = await browser.request(`${idp.url}/handoff?${q}`);
        const code = new URL(res.headers.get('location') ?? '').searchParams.get('token');
        return { code, code_verifier: verifier };
      },
      getUserInfo: { email: 'dora@example.com' },
      blockUser: { email: 'dora@example.com', blocked: false },
      setUserPassword: { email: 'dora@example.com', password: 'set by staff 9' },
      mailUserResetLink: { email: 'dora@example.com', reason: 'contract test' },
      // The staff caller's own address, never confirmed: a new link goes out.
      resendVerificationEmail: {},
    };
    for (const e of IDENTITY) {
      assert.ok(e.operationId in bodies, `no sample body for ${e.operationId}`);
      const seen = mail.mails.length;
      const sample = bodies[e.operationId];
      const res = await call(e, e.path, typeof sample === 'function' ? await sample() : sample, staffToken);
      // The reset mail goes out in the background: let it finish before the next change.
      if (e.operationId === 'requestPasswordReset') await mail.waitFor('dora@example.com', 'Reset', seen);
      const success = Number(Object.keys(e.response)[0]);
      assert.equal(res.status, success, e.operationId);
      const text = await res.text();
      const answer = res.headers.get('content-type')?.startsWith('application/json')
        ? JSON.parse(text)
        : text;
      const schema = e.response[success];
      assert.ok(schema?.safeParse(answer).success, `${e.operationId} answered ${text}`);
    }
  });
});
