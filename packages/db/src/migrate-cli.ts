/** `npm run db:migrate`: applies migrations to DATABASE_URL (or the PGlite store under DATA_DIR). */
import { createDb, migrateDb } from './client.ts';

const handle = await createDb({
  databaseUrl: process.env.DATABASE_URL,
  dataDir: process.env.DATA_DIR ?? './data',
});
await migrateDb(handle);
await handle.close();
console.log(`migrated (${handle.kind})`);
