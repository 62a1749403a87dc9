/**
 * Runs the market API server as its own process: `node src/main.ts [--role=http|worker|http,worker]`.
 *
 * Roles (default both): `http` serves the API (and the SPA when WEB_PORT is set); `worker` runs the
 * background jobs and their cron schedules (pg-boss in the same database). Scale them apart on
 * PostgreSQL (N API processes with `--role=http`, M workers with `--role=worker`); on PGlite run
 * both in one process, since only one process can open the data directory.
 *
 * Environment variables:
 *   PORT               API port (default 7301; 0 picks a free one); with --role=worker alone, the
 *                      worker's own /healthz, /readyz and /metrics listener
 *   PORTS_PORT         Ports API port (default 7307; 0 picks a free one), PORTS_HOST (default HOST)
 *   HOST               API listen address (default 127.0.0.1)
 *   DATABASE_URL       postgres://… ; when unset, PGlite under DATA_DIR
 *   DATA_DIR           local state directory for PGlite (default ./data)
 *   OIDC_ISSUER        required with the http role; exact `iss` of access tokens, also the discovery base
 *   OIDC_AUDIENCE      required with the http role; required `aud` of access tokens (the API identifier)
 *   OIDC_ALGS          allowed JWS algorithms, comma separated (default ES256)
 *   OIDC_JWKS_URI      optional; else read from the issuer's discovery document
 *   PERMISSIONS_CLAIM  claim with the permissions array (default permissions; dotted paths
 *                      like realm_access.roles reach into objects)
 *   CORS_ORIGINS       allowed browser origins, comma separated
 *   LOG_LEVEL          fatal|error|warn|info|debug|trace|silent (default info)
 *   METRICS_TOKEN      bearer token /metrics requires (API and worker); unset, /metrics answers 403
 *   BLOCK_CACHE_MS     how long a "not blocked" answer may be cached (default 1000)
 *   WEB_PORT           optional second listener serving the built SPA; with it:
 *   WEB_HOST           (default HOST), WEB_ROOT (directory of the build, required) and
 *   WEB_ENVIRONMENTS_FILE (JSON `{ environments: [...] }` served as /environments.json, required)
 *   Payments (apps/server/README.md, "Payments"): PAYMENTS_XPUB_BTC, PAYMENTS_XPUB_LTC,
 *   PAYMENTS_XPUB_TRON (account-level public keys; a currency without one cannot be charged),
 *   ESPLORA_BTC_URL, ESPLORA_LTC_URL, ESPLORA_*_API_KEY, TRONGRID_URL, TRONGRID_API_KEY,
 *   TRON_USDT_CONTRACT, RATES_KRAKEN_URL, RATES_FALLBACK_URL, RATES_MAX_AGE_S, CONFIRMATIONS_BTC,
 *   CONFIRMATIONS_LTC, PAYMENTS_BONUS_PCT, PAYMENTS_GRACE_HOURS, USDT_SMALL_PAYMENT_FEE_C,
 *   PAYMENTS_WATCH_CONCURRENCY, PAYMENTS_WATCH_BATCH, PAYMENTS_WATCH_INTERVAL_S, REFERRAL_INVITE_URL
 *   WEBHOOK_ALLOW_URLS origins (comma separated, e.g. http://127.0.0.1:7308) a webhook endpoint may
 *                      have although http:// or private; default none (apps/server/README.md, "Webhooks")
 *   Checks (apps/server/README.md, "Checks"): DNSBL_SERVER, DNSBL_ZONES, DNSBL_TIMEOUT_MS,
 *   DNSBL_RECHECK_HOURS, SCORECHECK_PRICE_C, SCORECHECK_TIMEOUT_MS, GETIPINTEL_URL, GETIPINTEL_CONTACT,
 *   IPQS_URL, IPQS_KEY, MINFRAUD_URL, MINFRAUD_ACCOUNT_ID, MINFRAUD_LICENSE_KEY
 */
import { createDb, migrateDb } from '@pm/db';
import { start } from './index.ts';
import { readEnvConfig, readRoles } from './platform/env.ts';

let env: ReturnType<typeof readEnvConfig>;
let roles: ReturnType<typeof readRoles>;
try {
  roles = readRoles(process.argv.slice(2));
  env = readEnvConfig(process.env, undefined, roles);
} catch (e) {
  console.error((e as Error).message);
  process.exit(2);
}

const db = await createDb({ databaseUrl: env.databaseUrl, dataDir: env.dataDir });
await migrateDb(db);
const server = await start({ ...env, db, roles });
const parts = [
  server.apiUrl ? `market API on ${server.apiUrl}` : undefined,
  server.portsUrl ? `ports API on ${server.portsUrl}` : undefined,
  server.webUrl ? `web on ${server.webUrl}` : undefined,
  server.opsUrl ? `health and metrics on ${server.opsUrl}` : undefined,
  roles.includes('worker') ? 'job workers running' : undefined,
];
console.log(parts.filter(Boolean).join(', '));

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: shutting down`);
  // Bounded: a stuck connection or job must not keep the process alive forever.
  const force = setTimeout(() => process.exit(1), 15_000);
  force.unref();
  await server.close();
  await db.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
