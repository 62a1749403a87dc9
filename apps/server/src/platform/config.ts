import type { TEnvironment } from '@pm/contracts';
import type { DbHandle } from '@pm/db';
import type { ChecksSettings } from '../modules/checks/checks.config.ts';
import type { PaymentsSettings } from '../modules/payments/payments.config.ts';

/** How access tokens are checked: only through the issuer's JWKS, with issuer, audience and algorithms pinned. */
export interface OidcConfig {
  /** Exact `iss` value (also the discovery base when `jwksUri` is not given). */
  issuer: string;
  /** Required `aud` value (the API identifier). */
  audience: string;
  /** Allowed JWS algorithms, e.g. ['ES256']. */
  algorithms: string[];
  /** Claim holding the permissions array; a dotted path (`realm_access.roles`) reaches into objects. */
  permissionsClaim: string;
  /** Else read from `${issuer}/.well-known/openid-configuration` on first use. */
  jwksUri?: string | undefined;
}

/** Settings of feature modules, read by the module that owns each part. */
export interface FeatureSettings {
  /** Crypto top-ups; without it no currency can be charged. */
  payments?: PaymentsSettings | undefined;
  /** The invite link with `{code}` for the referral code; default `<OIDC issuer>/signup?ref={code}`. */
  referralInviteUrl?: string | undefined;
  /** How long shop pages, counts, segments and country totals are shared between callers; default 1000 ms, 0 off. */
  shopCacheMs?: number | undefined;
  /** Blacklist zones and resolver, score providers and the score check's price; default the real services. */
  checks?: ChecksSettings | undefined;
  /** How long `POST /leases` with `probe` waits for the gateway's answer; default 5000 ms. */
  purchaseProbeTimeoutMs?: number | undefined;
  /**
   * How long a port package's refund waits for its node to flush the exact counters before
   * answering 503 with Retry-After; default 5000 ms.
   */
  portRefundFlushWaitMs?: number | undefined;
  /**
   * Bearer token `/metrics` requires (METRICS_TOKEN): without it 401, with another 403. Unset:
   * `/metrics` answers 403 to everyone (metrics are never public).
   */
  metricsToken?: string | undefined;
  /**
   * Permissions a new account gets when `PUT /accounts/my` creates it (NEW_ACCOUNT_PERMISSIONS);
   * default none: DEPOSIT waits for staff review, as the spec says. The devnet grants DEPOSIT.
   */
  newAccountPermissions?: readonly string[] | undefined;
  /** The password-grant token endpoint the public API document names; default `<OIDC issuer>/token`. */
  tokenUrl?: string | undefined;
  /** Every webhook endpoint may be http:// and on private or loopback addresses (tests); default false. */
  webhooksAllowPrivate?: boolean | undefined;
  /**
   * Origins a webhook endpoint may have although http:// or on a private address, matched exactly
   * against the URL's origin (WEBHOOK_ALLOW_URLS); default none. `npm start` names its webhook inbox.
   */
  webhookAllowUrls?: readonly string[] | undefined;
}

/** Fills the defaults that depend on other settings (the invite link lives on the identity host). */
export function withSettingDefaults(settings: FeatureSettings | undefined, issuer: string): FeatureSettings {
  return {
    ...settings,
    referralInviteUrl: settings?.referralInviteUrl ?? `${issuer.replace(/\/+$/, '')}/signup?ref={code}`,
    tokenUrl: settings?.tokenUrl ?? `${issuer.replace(/\/+$/, '')}/token`,
  };
}

export interface WebConfig {
  host: string;
  port: number;
  /** Directory of the built SPA (index.html, assets/). */
  root: string;
  environments: TEnvironment[];
  /** The operator's Terms and Privacy copy (Markdown; TERMS_FILE, PRIVACY_FILE); unset: the app's template. */
  legal?: { terms?: string | undefined; privacy?: string | undefined } | undefined;
}

/** What a server process does: serve the HTTP API, run background jobs, or both. */
export type ServerRole = 'http' | 'worker';
/** Every role, in the order `--role` lists them. */
export const SERVER_ROLES: readonly ServerRole[] = ['http', 'worker'];

export interface ServerConfig {
  /** Default both: the API and the job workers in one process (what `npm start` runs). */
  roles?: readonly ServerRole[] | undefined;
  /** API listener (tests: 127.0.0.1 and port 0). */
  host: string;
  port: number;
  /** A migrated database. */
  db: DbHandle;
  /** Token checks of the HTTP role. */
  oidc: OidcConfig;
  corsOrigins: string[];
  /** Optional second listener serving the built SPA and `/environments.json`. */
  web?: WebConfig | undefined;
  /** The Ports API's own listener (PORTS_HOST, PORTS_PORT; rules §7: its own base address). */
  ports?: { host: string; port: number } | undefined;
  logLevel?: string | undefined;
  /** How long a "not blocked" answer may be cached per user; default 1000. */
  blockCacheMs?: number | undefined;
  /**
   * Reverse proxies in front of the API (TRUST_PROXY_HOPS; default 0: X-Forwarded-For ignored).
   * With N the client IP is the Nth X-Forwarded-For entry from the right.
   */
  trustProxyHops?: number | undefined;
  /** How often an idle worker looks for jobs; default 2000 ms. */
  jobPollingIntervalMs?: number | undefined;
  /** Feature settings (payments, referral link). */
  settings?: FeatureSettings | undefined;
}

/** `http://host:port`, with brackets around an IPv6 host. */
export function httpUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
