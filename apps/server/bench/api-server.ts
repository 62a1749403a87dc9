/**
 * The market API as the benchmark runs it: the http role only, on a migrated database, in its own
 * process (so the load generator does not share its event loop). Prints `LISTENING <url>`.
 * Env: DATABASE_URL, OIDC_ISSUER, OIDC_AUDIENCE, SHOP_CACHE_MS (the shop's shared-answer window),
 * QUERY_COUNT_FILE (count the database round trips, `query-count.ts`).
 */
import { createDb } from '@pm/db';
import { start } from '../src/index.ts';
import { countQueries } from './query-count.ts';

if (process.env.QUERY_COUNT_FILE) countQueries(process.env.QUERY_COUNT_FILE);

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const db = await createDb({ databaseUrl: env('DATABASE_URL'), maxConnections: 10 });
const server = await start({
  roles: ['http'],
  host: '127.0.0.1',
  port: 0,
  db,
  oidc: {
    issuer: env('OIDC_ISSUER'),
    audience: env('OIDC_AUDIENCE'),
    algorithms: ['ES256'],
    permissionsClaim: 'permissions',
  },
  corsOrigins: [],
  logLevel: 'warn',
  settings: { shopCacheMs: Number(process.env.SHOP_CACHE_MS ?? 1000) },
});
console.log(`LISTENING ${server.apiUrl}`);
process.on('SIGTERM', () => {
  void server
    .close()
    .then(() => db.close())
    .finally(() => process.exit(0));
});
