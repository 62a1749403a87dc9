/**
 * Runs the sign-in host on its own (production, or one service of a split deployment).
 *
 * Environment variables:
 *   DATABASE_URL               postgres://… ; when unset, PGlite under DATA_DIR (single process only)
 *   DATA_DIR                   local state directory (default ./data); generated secrets are kept here
 *   IDENTITY_HOST              listen address (default 127.0.0.1)
 *   IDENTITY_PORT              listen port (default 7302)
 *   IDENTITY_ISSUER            public base URL, no trailing slash (default http://localhost:IDENTITY_PORT)
 *   OIDC_AUDIENCE              resource indicator / `aud` of access tokens (default https://api.proxymarket.local)
 *   WEB_CLIENT_ID              public SPA client id (default web)
 *   WEB_REDIRECT_URIS          comma-separated redirect URIs of the SPA (required); add https://<BROWSER_ADDON_ID>.chromiumapp.org/ for the browser add-on
 *   WEB_POST_LOGOUT_URIS       comma-separated post-logout redirect URIs (default APP_URL)
 *   API_CLIENT_ID              the password grant's public client id (default public-api; no secret)
 *   CORS_ORIGINS               comma-separated web app origins (default: origins of WEB_REDIRECT_URIS, and chrome-extension://<id> for an add-on's one)
 *   APP_URL                    the product's own site (required)
 *   SMTP_URL                   smtp://user:pass@host:port or smtps://… (required)
 *   MAIL_FROM                  sender (default "ProxyMarket <no-reply@example.com>")
 *   IDENTITY_JWKS              private signing JWK set as JSON; when unset, generated once and kept in
 *                              DATA_DIR/identity-secrets.json
 *   COOKIE_KEYS                comma-separated cookie signing keys (newest first); same fallback as above
 *   ACCESS_TOKEN_TTL_SECONDS   default 300
 *   TRUST_PROXY_HOPS           how many reverse proxies stand in front (default 0); the client IP is
 *                              the Nth X-Forwarded-For entry from the right, X-Forwarded-Proto is believed
 *   TRUST_PROXY                "true" is TRUST_PROXY_HOPS=1 (older setting; TRUST_PROXY_HOPS wins)
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createDb, migrateDb } from '@pm/db';
import { z } from 'zod';
import { start } from './index.ts';

const list = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean),
);

const Env = z.object({
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('./data'),
  IDENTITY_HOST: z.string().default('127.0.0.1'),
  IDENTITY_PORT: z.coerce.number().int().min(0).max(65535).default(7302),
  IDENTITY_ISSUER: z.string().url().optional(),
  OIDC_AUDIENCE: z.string().url().default('https://api.proxymarket.local'),
  WEB_CLIENT_ID: z.string().min(1).default('web'),
  WEB_REDIRECT_URIS: list.pipe(z.array(z.string().url()).min(1)),
  WEB_POST_LOGOUT_URIS: list.pipe(z.array(z.string().url())).optional(),
  API_CLIENT_ID: z.string().min(1).default('public-api'),
  CORS_ORIGINS: list.pipe(z.array(z.string().url())).optional(),
  APP_URL: z.string().url(),
  SMTP_URL: z.string().url(),
  MAIL_FROM: z.string().default('ProxyMarket <no-reply@example.com>'),
  IDENTITY_JWKS: z.string().optional(),
  COOKIE_KEYS: list.pipe(z.array(z.string().min(16)).min(1)).optional(),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(30).max(3600).default(300),
  TRUST_PROXY: z.enum(['true', 'false']).default('false'),
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).optional(),
});

const parsed = Env.safeParse(process.env);
if (!parsed.success) {
  for (const issue of parsed.error.issues)
    console.error(`Configuration error: ${issue.path.join('.')}: ${issue.message}`);
  process.exit(1);
}
const env = parsed.data;

interface Secrets {
  jwks?: { keys: object[] };
  cookieKeys?: string[];
}
const dataDir = resolve(env.DATA_DIR);
const secretsFile = join(dataDir, 'identity-secrets.json');
const stored: Secrets = existsSync(secretsFile)
  ? (JSON.parse(readFileSync(secretsFile, 'utf8')) as Secrets)
  : {};

let jwks: { keys: object[] } | undefined;
if (env.IDENTITY_JWKS) {
  try {
    jwks = JSON.parse(env.IDENTITY_JWKS) as { keys: object[] };
    if (!Array.isArray(jwks.keys) || jwks.keys.length === 0) throw new Error('no keys');
  } catch (e) {
    console.error(
      `Configuration error: IDENTITY_JWKS: must be a JWK set with private keys (${(e as Error).message})`,
    );
    process.exit(1);
  }
} else {
  jwks = stored.jwks;
}
const cookieKeys = env.COOKIE_KEYS ?? stored.cookieKeys ?? [randomBytes(32).toString('base64url')];

const db = await createDb({ databaseUrl: env.DATABASE_URL, dataDir });
await migrateDb(db);

/**
 * The CORS origins a redirect URI implies: its own, and for a browser add-on's
 * `https://<id>.chromiumapp.org/` the add-on's `chrome-extension://<id>` (its token exchange).
 */
function corsOriginsOf(redirectUri: string): string[] {
  const addon = /^https:\/\/([a-p]{32})\.chromiumapp\.org\//.exec(redirectUri);
  return addon
    ? [new URL(redirectUri).origin, `chrome-extension://${addon[1]}`]
    : [new URL(redirectUri).origin];
}

const handle = await start({
  host: env.IDENTITY_HOST,
  port: env.IDENTITY_PORT,
  issuer: env.IDENTITY_ISSUER ?? `http://localhost:${env.IDENTITY_PORT}`,
  db,
  apiAudience: env.OIDC_AUDIENCE,
  webClient: {
    clientId: env.WEB_CLIENT_ID,
    redirectUris: env.WEB_REDIRECT_URIS,
    postLogoutRedirectUris: env.WEB_POST_LOGOUT_URIS ?? [env.APP_URL],
  },
  apiClient: { clientId: env.API_CLIENT_ID },
  corsOrigins: env.CORS_ORIGINS ?? [...new Set(env.WEB_REDIRECT_URIS.flatMap(corsOriginsOf))],
  appUrl: env.APP_URL,
  smtpUrl: env.SMTP_URL,
  mailFrom: env.MAIL_FROM,
  ...(jwks ? { jwks } : {}),
  cookieKeys,
  accessTokenTtlSeconds: env.ACCESS_TOKEN_TTL_SECONDS,
  trustProxyHops: env.TRUST_PROXY_HOPS ?? (env.TRUST_PROXY === 'true' ? 1 : 0),
});

// Keep generated secrets so sessions and issued tokens survive a restart.
if (!env.IDENTITY_JWKS || !env.COOKIE_KEYS) {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(secretsFile, JSON.stringify({ jwks: handle.jwks, cookieKeys }, null, 2), { mode: 0o600 });
}

console.log(`identity: listening on ${handle.url}`);

const shutdown = async () => {
  await handle.close();
  await db.close();
  process.exit(0);
};
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());
