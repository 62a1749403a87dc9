import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDb, type DbHandle, migrateDb } from './client.ts';

/** The PostgreSQL server tests run against (the machine's local one unless DATABASE_URL says otherwise). */
export const TEST_SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase extends DbHandle {
  /** Connection string of the fresh database, for apps started by the test. */
  url: string;
  /** Closes the handle and drops the database. */
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * Creates a fresh, migrated database on the test server (or `serverUrl`'s: a test's own cluster),
 * named after `label`. Each test file calls this once so files never see each other's rows.
 */
export async function createTestDatabase(label = 'test', serverUrl = TEST_SERVER_URL): Promise<TestDatabase> {
  const name = `t_${label
    .replace(/[^a-z0-9]/gi, '_')
    .toLowerCase()
    .slice(0, 30)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(serverUrl, name);
  const handle = await createDb({ databaseUrl: url, maxConnections: 20 });
  await migrateDb(handle);
  return {
    ...handle,
    url,
    async drop() {
      await handle.close();
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
export * from './factories.ts';
