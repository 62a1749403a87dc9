import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import * as schema from './schema/index.ts';

export type Schema = typeof schema;
/** The Drizzle database, whichever driver is underneath. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** A transaction handle; repositories take `Db | Tx` so callers can compose them. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;

export interface DbHandle {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** Runs raw SQL with positional parameters; returns rows. */
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** LISTEN on a channel; returns an unsubscribe function. Survives reconnects on PostgreSQL. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface DbConfig {
  /** `postgres://…`; when unset, PGlite under `dataDir`. */
  databaseUrl?: string | undefined;
  /** Directory for local state (PGlite files live in `<dataDir>/pglite`). */
  dataDir?: string;
  /** Pool size for PostgreSQL. */
  maxConnections?: number;
}

export const MIGRATIONS_FOLDER = resolve(dirname(fileURLToPath(import.meta.url)), '../drizzle');

/** Opens the database: node-postgres when `databaseUrl` is set, PGlite otherwise. Does not migrate. */
export async function createDb(config: DbConfig): Promise<DbHandle> {
  if (config.databaseUrl) return createPostgres(config.databaseUrl, config.maxConnections ?? 10);
  const dir = resolve(config.dataDir ?? './data', 'pglite');
  mkdirSync(dir, { recursive: true });
  return createPglite(dir);
}

/** How long a pool waits for a connection (made or freed) before the query fails. */
const CONNECT_TIMEOUT_MS = 5000;

function createPostgres(url: string, max: number): DbHandle & { pool: pg.Pool } {
  // A connection that cannot be made within 5 s fails (a request answers 503, docs/deploying.md) rather
  // than queueing for as long as the database is away; keepAlive notices a peer that vanished.
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
  });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => {});
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  return {
    db,
    kind: 'postgres',
    pool,
    async query(text, params) {
      const r = await pool.query(text, params as unknown[]);
      return r.rows;
    },
    listen: (channel, onPayload) => listenPostgres(url, channel, onPayload),
    close: () => pool.end(),
  };
}

/** A dedicated LISTEN connection that reconnects with backoff when the server goes away. */
async function listenPostgres(
  url: string,
  channel: string,
  onPayload: (payload: string) => void,
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let closed = false;
  let delayMs = 250;
  const connect = async (): Promise<void> => {
    while (!closed) {
      const c = new pg.Client({ connectionString: url });
      try {
        c.on('error', () => {});
        await c.connect();
        c.on('notification', (n) => {
          if (n.channel === channel) onPayload(n.payload ?? '');
        });
        c.on('end', () => {
          if (!closed) setTimeout(() => void connect(), delayMs);
        });
        await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        client = c;
        delayMs = 250;
        // Something may have been missed while disconnected: tell the listener to reload.
        onPayload('');
        return;
      } catch {
        await c.end().catch(() => {});
        await new Promise((r) => setTimeout(r, delayMs));
        delayMs = Math.min(delayMs * 2, 5000);
      }
    }
  };
  await connect();
  return async () => {
    closed = true;
    await client?.end().catch(() => {});
  };
}

/**
 * PGlite's settings. Its postgresql.conf keeps PostgreSQL's server defaults, sized for a machine many
 * connections share: 128 MB of shared_buffers alone was a quarter of `npm start`'s memory, resident
 * once touched. One embedded process over a few tens of MB of data, read from files the OS caches,
 * needs far less (docs/benchmarks.md, "Memory of npm start").
 */
export const PGLITE_SETTINGS: readonly string[] = ['shared_buffers=16MB'];

async function createPglite(dir: string): Promise<DbHandle> {
  const client = await PGlite.create(dir, { postgresqlconf: [...PGLITE_SETTINGS] });
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    async query(text, params) {
      const r = await client.query(text, params as unknown[]);
      return r.rows as never[];
    },
    async listen(channel, onPayload) {
      const unsub = await client.listen(channel, onPayload);
      return async () => unsub();
    },
    close: () => client.close(),
  };
}

/** Applies pending migrations; on PostgreSQL under an advisory lock so parallel starts are safe. */
export async function migrateDb(handle: DbHandle): Promise<void> {
  if (handle.kind === 'pglite') {
    await migratePglite(handle.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
    return;
  }
  // Session-level lock: taken and released on one dedicated connection of the pool.
  const pool = (handle as DbHandle & { pool: pg.Pool }).pool;
  const lockClient = await pool.connect();
  try {
    await lockClient.query('SELECT pg_advisory_lock(727274)');
    await migratePg(handle.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await lockClient.query('SELECT pg_advisory_unlock(727274)').catch(() => {});
    lockClient.release();
  }
}
