import { readFileSync } from 'node:fs';
import { PERMISSION_DEPOSIT, type TEnvironment, ZEnvironmentsFile } from '@pm/contracts';
import { readChecksEnv } from '../modules/checks/checks.config.ts';
import { readPaymentsEnv } from '../modules/payments/payments.config.ts';
import {
  type FeatureSettings,
  type OidcConfig,
  SERVER_ROLES,
  type ServerRole,
  type WebConfig,
} from './config.ts';

/** Everything `main.ts` reads from the environment, validated. */
export interface EnvConfig {
  host: string;
  port: number;
  databaseUrl: string | undefined;
  dataDir: string;
  oidc: OidcConfig;
  corsOrigins: string[];
  logLevel: string;
  blockCacheMs: number;
  /** PORTS_PORT (default 7307; 0 picks a free one) and PORTS_HOST (default HOST): the Ports API's listener. */
  ports: { host: string; port: number };
  /** TRUST_PROXY_HOPS: reverse proxies in front (0-10, default 0). */
  trustProxyHops: number;
  web: WebConfig | undefined;
  /**
   * Payments (PAYMENTS_*, ESPLORA_*, TRONGRID_*, RATES_*, CONFIRMATIONS_*), the invite link
   * (REFERRAL_INVITE_URL) and what a new account gets (NEW_ACCOUNT_PERMISSIONS).
   */
  settings: FeatureSettings;
}

/** Account permissions an operator may give every new account (staff permissions live in the identity provider). */
const NEW_ACCOUNT_GRANTABLE = [PERMISSION_DEPOSIT];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * The roles named by `--role=http`, `--role=worker` or `--role=http,worker` among the process
 * arguments; both when there is no `--role`. Throws on an unknown role.
 */
export function readRoles(argv: readonly string[]): ServerRole[] {
  const arg = argv.find((a) => a.startsWith('--role='));
  if (arg === undefined) return [...SERVER_ROLES];
  const names = arg.slice('--role='.length).split(',').filter(Boolean);
  const roles = SERVER_ROLES.filter((r) => names.includes(r));
  if (roles.length === 0 || roles.length !== names.length) {
    throw new Error(`--role must be ${SERVER_ROLES.join(', ')} or both comma separated, got "${arg}"`);
  }
  return roles;
}

/**
 * Reads and validates the server's environment variables; throws one Error naming every bad
 * value, so a misconfigured deployment fails at start with a clear message. The OIDC variables
 * are required only with the http role.
 */
export function readEnvConfig(
  env: NodeJS.ProcessEnv,
  readFile = (p: string) => readFileSync(p, 'utf8'),
  roles: readonly ServerRole[] = SERVER_ROLES,
): EnvConfig {
  const isHttp = roles.includes('http');
  const problems: string[] = [];
  const str = (name: string, fallback?: string): string => {
    const v = env[name]?.trim();
    if (v) return v;
    if (fallback === undefined) problems.push(`${name} is required`);
    return fallback ?? '';
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max)
      problems.push(`${name} must be an integer ${min}-${max}, got "${raw}"`);
    return n;
  };
  const url = (name: string, value: string): void => {
    if (!value) return;
    try {
      new URL(value);
    } catch {
      problems.push(`${name} must be a URL, got "${value}"`);
    }
  };
  const list = (name: string, fallback: string): string[] =>
    str(name, fallback)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);

  const issuer = str('OIDC_ISSUER', isHttp ? undefined : '');
  url('OIDC_ISSUER', issuer);
  const jwksUri = env.OIDC_JWKS_URI?.trim() || undefined;
  if (jwksUri) url('OIDC_JWKS_URI', jwksUri);
  const algorithms = list('OIDC_ALGS', 'ES256');
  for (const alg of algorithms) {
    if (!/^(ES|RS|PS)(256|384|512)$|^EdDSA$|^Ed25519$/.test(alg))
      problems.push(`OIDC_ALGS: "${alg}" is not an asymmetric JWS algorithm`);
  }
  const corsOrigins = list('CORS_ORIGINS', '');
  for (const o of corsOrigins) url('CORS_ORIGINS', o);
  const logLevel = str('LOG_LEVEL', 'info');
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  // Exact origins only: a path or a trailing part would look narrower than the match really is.
  const webhookAllowUrls = list('WEBHOOK_ALLOW_URLS', '');
  for (const o of webhookAllowUrls) {
    const origin = URL.canParse(o) ? new URL(o).origin : 'null';
    if (origin === 'null' || origin !== o.replace(/\/$/, ''))
      problems.push(`WEBHOOK_ALLOW_URLS: "${o}" is not an origin such as http://127.0.0.1:7308`);
  }
  const newAccountPermissions = list('NEW_ACCOUNT_PERMISSIONS', '');
  for (const p of newAccountPermissions) {
    if (!NEW_ACCOUNT_GRANTABLE.includes(p))
      problems.push(`NEW_ACCOUNT_PERMISSIONS: "${p}" is not one of ${NEW_ACCOUNT_GRANTABLE.join(', ')}`);
  }

  let web: EnvConfig['web'];
  const webPort = env.WEB_PORT?.trim();
  if (webPort) {
    const root = str('WEB_ROOT');
    const file = str('WEB_ENVIRONMENTS_FILE');
    let environments: TEnvironment[] = [];
    if (file) {
      try {
        environments = ZEnvironmentsFile.parse(JSON.parse(readFile(file))).environments;
      } catch (e) {
        problems.push(
          `WEB_ENVIRONMENTS_FILE ${file} is not a valid environments file: ${(e as Error).message}`,
        );
      }
    }
    // The operator's Terms and Privacy copy (Markdown), read once at start.
    const legal: NonNullable<WebConfig['legal']> = {};
    for (const [name, key] of [
      ['TERMS_FILE', 'terms'],
      ['PRIVACY_FILE', 'privacy'],
    ] as const) {
      const path = env[name]?.trim();
      if (!path) continue;
      try {
        legal[key] = readFile(path);
      } catch (e) {
        problems.push(`${name} ${path} cannot be read: ${(e as Error).message}`);
      }
    }
    web = {
      host: str('WEB_HOST', str('HOST', '127.0.0.1')),
      port: int('WEB_PORT', 0, 0, 65535),
      root,
      environments,
      legal,
    };
  }

  const config: EnvConfig = {
    host: str('HOST', '127.0.0.1'),
    port: int('PORT', 7301, 0, 65535),
    databaseUrl: env.DATABASE_URL?.trim() || undefined,
    dataDir: str('DATA_DIR', './data'),
    oidc: {
      issuer,
      audience: str('OIDC_AUDIENCE', isHttp ? undefined : ''),
      algorithms,
      permissionsClaim: str('PERMISSIONS_CLAIM', 'permissions'),
      jwksUri,
    },
    corsOrigins,
    logLevel,
    blockCacheMs: int('BLOCK_CACHE_MS', 1000, 0, 60_000),
    ports: { host: str('PORTS_HOST', str('HOST', '127.0.0.1')), port: int('PORTS_PORT', 7307, 0, 65535) },
    trustProxyHops: int('TRUST_PROXY_HOPS', 0, 0, 10),
    web,
    settings: {
      payments: readPaymentsEnv(env, problems),
      checks: readChecksEnv(env, problems),
      referralInviteUrl: env.REFERRAL_INVITE_URL?.trim() || undefined,
      metricsToken: env.METRICS_TOKEN?.trim() || undefined,
      newAccountPermissions,
      webhookAllowUrls,
    },
  };
  if (problems.length > 0) throw new Error(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return config;
}
