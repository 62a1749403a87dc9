import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Router from '@koa/router';
import { createPgRateCounter, type DbHandle, sweepRateLimits } from '@pm/db';
import { exportJWK, generateKeyPair, type JSONWebKeySet, type JWK } from 'jose';
import type { Context, Next } from 'koa';
import { errors } from 'oidc-provider';
import { purgeExpiredPayloads } from './adapter.ts';
import { createAdminRouter } from './admin.routes.ts';
import { createHandoffService } from './handoff.service.ts';
import { corsFor, securityHeaders, sendHtml } from './http.ts';
import { createLimits, type LimitOverrides } from './limits.ts';
import { createMailer, type Mailer } from './mail.ts';
import { createAssetRouter } from './pages/assets.ts';
import { createPageRouter } from './pages/routes.ts';
import { errorPage } from './pages/views.ts';
import { registerPasswordGrant } from './password-grant.ts';
import { verifyPassword } from './passwords.ts';
import { createProvider } from './provider.ts';
import { createStaffService } from './staff.service.ts';

export { newTotpSecret, totpUri } from './totp.ts';

import { createTwoFactorService } from './two-factor.service.ts';
import { createUsersRepository } from './users.repository.ts';
import { createUsersService } from './users.service.ts';

export interface IdentityConfig {
  /** Listen address (tests: 127.0.0.1, 0). */
  host: string;
  port: number;
  /** Public base URL without a trailing slash; when omitted it is http://host:boundPort. */
  issuer?: string;
  /** Already migrated. */
  db: DbHandle;
  /** `aud` of access tokens: the market API's resource indicator. */
  apiAudience: string;
  /** Public SPA client, code + PKCE, rotating refresh tokens. */
  webClient: { clientId: string; redirectUris: string[]; postLogoutRedirectUris: string[] };
  /** Public client (no secret) of the password grant, no refresh token. */
  apiClient: { clientId: string };
  /** Web app origins allowed to call token, change_code and admin endpoints. */
  corsOrigins: string[];
  /** The product's own site (links back to the app, post-logout). */
  appUrl: string;
  smtpUrl: string;
  mailFrom: string;
  /** Private ES256 signing JWKs; generated when absent (the launcher persists the returned set). */
  jwks?: { keys: object[] };
  cookieKeys: string[];
  /** Default 300. */
  accessTokenTtlSeconds?: number;
  /** Overrides of the default rate limits and the account slow-down (see limits.ts), e.g. for tests. */
  rateLimits?: LimitOverrides;
  /**
   * How many reverse proxies stand in front (default 0: none, X-Forwarded-* ignored). With N, the
   * client IP is the Nth X-Forwarded-For entry from the right (the one the outermost of our
   * proxies saw) and X-Forwarded-Proto is believed; entries further left are client-written.
   */
  trustProxyHops?: number;
}

/** A route of the host's own routers (oidc-provider's protocol routes are not among them). */
export interface IdentityRoute {
  router: 'api' | 'assets' | 'pages';
  method: string;
  path: string;
}

export interface IdentityHandle {
  url: string;
  port: number;
  jwks: { keys: object[] };
  /** What the host's own routers serve (the endpoint-contract test checks the `api` ones). */
  routes: IdentityRoute[];
  close(): Promise<void>;
}

async function generateJwks(): Promise<{ keys: object[] }> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { keys: [{ ...jwk, kid: `es256-${Date.now().toString(36)}`, alg: 'ES256', use: 'sig' }] };
}

/** The public half of each signing key (drops the private parameters). */
function toPublicJwks(jwks: { keys: object[] }): JSONWebKeySet {
  return {
    keys: jwks.keys.map((k) => {
      const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = k as JWK;
      return pub;
    }),
  };
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** Renders expired interaction cookies and similar provider errors on our own pages. */
function pageErrors(appUrl: string) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
    } catch (e) {
      if (e instanceof errors.SessionNotFound) {
        return sendHtml(
          ctx,
          errorPage({ message: 'Your sign-in session expired. Go back to the app and try again.', appUrl }),
          400,
        );
      }
      throw e;
    }
  };
}

/** Each method and path a router answers (its middleware, without methods, left out). */
function routesOf(name: string, router: Router): IdentityRoute[] {
  return router.stack.flatMap((layer) =>
    layer.methods.map((method) => ({
      router: name as IdentityRoute['router'],
      method,
      path: String(layer.path),
    })),
  );
}

function noopMailer(): Mailer {
  return { send: async () => {}, close: () => {} };
}

/** Starts the sign-in host: OpenID provider, pages, password grant, reset mail and admin API. */
export async function start(config: IdentityConfig): Promise<IdentityHandle> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const issuer = (config.issuer ?? `http://${urlHost(config.host)}:${port}`).replace(/\/+$/, '');
  const jwks = config.jwks ?? (await generateJwks());
  const accessTokenTtlSeconds = config.accessTokenTtlSeconds ?? 300;

  const mailer = createMailer(config.smtpUrl, config.mailFrom);
  const repo = createUsersRepository(config.db.db);
  const users = createUsersService({ repo, mailer, issuer: () => issuer, appUrl: config.appUrl });
  const twoFactor = createTwoFactorService({ repo });
  // Counted in the shared `rate_limits` table: every identity process spends one budget.
  const limits = createLimits(config.rateLimits, Date.now, createPgRateCounter(config.db));

  const provider = createProvider({
    issuer,
    db: config.db,
    users,
    apiAudience: config.apiAudience,
    webClient: config.webClient,
    apiClient: config.apiClient,
    corsOrigins: config.corsOrigins,
    appUrl: config.appUrl,
    jwks,
    cookieKeys: config.cookieKeys,
    accessTokenTtlSeconds,
  });
  const hops = config.trustProxyHops ?? 0;
  if (!Number.isInteger(hops) || hops < 0)
    throw new Error(`trustProxyHops must be a whole number, got ${hops}`);
  // Koa: with proxy on, ctx.ip = X-Forwarded-For's entries sliced to the last maxIpsCount, first one.
  provider.proxy = hops > 0;
  provider.maxIpsCount = hops;
  registerPasswordGrant(provider, {
    users,
    twoFactor,
    limits,
    apiAudience: config.apiAudience,
    accessTokenTtlSeconds,
  });

  const handoff = createHandoffService({
    provider,
    repo,
    webClient: config.webClient,
    apiAudience: config.apiAudience,
    accessTokenTtlSeconds,
  });
  const pages = createPageRouter({
    handoff,
    provider,
    users,
    twoFactor,
    limits,
    appUrl: config.appUrl,
    webClientId: config.webClient.clientId,
    apiAudience: config.apiAudience,
  });
  const admin = createAdminRouter({
    users,
    staff: createStaffService({ repo, mailer, issuer: () => issuer, appUrl: config.appUrl }),
    handoff,
    limits,
    issuer,
    apiAudience: config.apiAudience,
    publicJwks: toPublicJwks(jwks),
  });

  // The host's own routes, by router, in the order they are tried: the JSON API (each operation
  // from the endpoint contract), the pages' static files, the HTML pages.
  const routers = { api: admin, assets: createAssetRouter(), pages };

  provider.use(securityHeaders);
  provider.use(corsFor(config.corsOrigins, ['/dbconnections/', '/administator/', '/handoff/']));
  provider.use(async (ctx, next) => {
    if (ctx.path === '/healthz') {
      ctx.body = { ok: true };
      return;
    }
    await next();
  });
  provider.use(pageErrors(config.appUrl));
  for (const router of Object.values(routers)) provider.use(router.routes());
  provider.on('server_error', (_ctx, err) => {
    console.error('identity: server error', err);
  });

  server.on('request', provider.callback());

  const purge = setInterval(
    () => {
      void purgeExpiredPayloads(config.db).catch(() => {});
      void sweepRateLimits(config.db).catch(() => {});
    },
    10 * 60 * 1000,
  );
  purge.unref();

  return {
    url: issuer,
    port,
    jwks,
    routes: Object.entries(routers).flatMap(([name, router]) => routesOf(name, router)),
    async close() {
      clearInterval(purge);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      mailer.close();
    },
  };
}

/** Creates or updates a user (used by the launcher for demo users and by tests). */
export async function ensureUser(
  db: DbHandle,
  u: {
    email: string;
    password: string;
    permissions?: string[];
    emailVerified?: boolean;
    totpSecret?: string;
  },
): Promise<{ id: string; referralCode: string }> {
  const users = createUsersService({
    repo: createUsersRepository(db.db),
    mailer: noopMailer(),
    issuer: () => '',
    appUrl: '',
  });
  const { totpSecret, ...user } = u;
  const created = await users.ensureUser(user);
  if (totpSecret) await enrolTotp(db, u.email, totpSecret);
  return created;
}

/**
 * Turns two-factor sign-in on for a user with a known TOTP secret (the launcher's demo admin,
 * tests); the same secret again changes nothing. False for an unknown email.
 */
export async function enrolTotp(db: DbHandle, email: string, secret: string): Promise<boolean> {
  const twoFactor = createTwoFactorService({ repo: createUsersRepository(db.db) });
  return twoFactor.enrolWithSecret(email.trim().toLowerCase(), secret);
}

/**
 * Whether `password` is still the user's password (the launcher prints a demo password only while
 * it is), with the user's id and two-factor secret; undefined for an unknown email.
 */
export async function checkUserPassword(
  db: DbHandle,
  email: string,
  password: string,
): Promise<{ userId: string; matches: boolean; totpSecret: string | null } | undefined> {
  const user = await createUsersRepository(db.db).findByEmail(email.trim().toLowerCase());
  return user
    ? {
        userId: user.id,
        matches: await verifyPassword(user.passwordHash, password),
        totpSecret: user.totpSecret,
      }
    : undefined;
}
