/**
 * Runs the market API as its own process.
 *
 * Environment variables:
 *   PORT               API port (default 7301; 0 picks a free one)
 *   HOST               API listen address (default 127.0.0.1)
 *   DATABASE_URL       postgres://… ; when unset, PGlite under DATA_DIR
 *   DATA_DIR           local state directory for PGlite (default ./data)
 *   OIDC_ISSUER        required; exact `iss` of access tokens, also the discovery base
 *   OIDC_AUDIENCE      required; required `aud` of access tokens (the API identifier)
 *   OIDC_ALGS          allowed JWS algorithms, comma separated (default ES256)
 *   OIDC_JWKS_URI      optional; else read from the issuer's discovery document
 *   PERMISSIONS_CLAIM  claim with the permissions array (default permissions; dotted paths
 *                      like realm_access.roles reach into objects)
 *   CORS_ORIGINS       allowed browser origins, comma separated
 *   LOG_LEVEL          fatal|error|warn|info|debug|trace|silent (default info)
 *   BLOCK_CACHE_MS     how long a "not blocked" answer may be cached (default 1000)
 *   WEB_PORT           optional second listener serving the built SPA; with it:
 *   WEB_HOST           (default HOST), WEB_ROOT (directory of the build, required) and
 *   WEB_ENVIRONMENTS_FILE (JSON `{ environments: [...] }` served as /environments.json, required)
 */
import { createDb, migrateDb } from '@pm/db';
import { start } from './index.ts';
import { readEnvConfig } from './platform/env.ts';

let env: ReturnType<typeof readEnvConfig>;
try {
  env = readEnvConfig(process.env);
} catch (e) {
  console.error((e as Error).message);
  process.exit(2);
}

const db = await createDb({ databaseUrl: env.databaseUrl, dataDir: env.dataDir });
await migrateDb(db);
const server = await start({ ...env, db });
console.log(`market API on ${server.apiUrl}${server.webUrl ? `, web on ${server.webUrl}` : ''}`);

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: shutting down`);
  // Bounded: a stuck connection must not keep the process alive forever.
  const force = setTimeout(() => process.exit(1), 10_000);
  force.unref();
  await server.close();
  await db.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
