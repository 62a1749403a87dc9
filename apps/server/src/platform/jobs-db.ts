import type { DbHandle } from '@pm/db';
import { type Db as BossDb, fromPglite, type PGliteLike } from 'pg-boss';

/** The part of a node-postgres pool the adapter uses. */
interface PoolLike {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * pg-boss's database adapter over the app's own handle, so jobs share its pool (PostgreSQL) or its
 * single in-process instance (PGlite, where nothing else could open the data directory). Drizzle
 * keeps the driver client as `$client`: a node-postgres pool or a PGlite instance.
 */
export function toBossDb(handle: DbHandle): BossDb {
  const client = (handle.db as unknown as { $client: PGliteLike | PoolLike }).$client;
  if (handle.kind === 'pglite') return fromPglite(client as PGliteLike);
  const pool = client as PoolLike;
  // pool.query runs a parameterless multi-statement text (pg-boss's BEGIN … COMMIT blocks) with the
  // simple protocol on one connection, and closes a connection whose statement failed.
  return { executeSql: (text, values) => pool.query(text, values) };
}
