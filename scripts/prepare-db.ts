/**
 * Creates and migrates `npm start`'s embedded database (PGlite in `<DATA_DIR>/pglite`) in a process
 * of its own, which then exits. PostgreSQL's initdb and the first run of every migration grow
 * PGlite's WebAssembly memory by several hundred MiB, and a WebAssembly memory never shrinks: done in
 * the product's process, that peak stayed resident for as long as it ran (docs/benchmarks.md, "Memory
 * of `npm start`"). Its last line is `{"peakMiB":N}`, its own peak resident set (Linux; null elsewhere).
 * Usage: node scripts/prepare-db.ts DATA_DIR   (scripts/start.ts runs it on a fresh DATA_DIR)
 */
import { existsSync, readFileSync } from 'node:fs';
import { createDb, migrateDb } from '@pm/db';

const dataDir = process.argv[2];
if (!dataDir) {
  console.error('usage: node scripts/prepare-db.ts DATA_DIR');
  process.exit(2);
}
const db = await createDb({ dataDir });
await migrateDb(db);
await db.close();
const status = existsSync('/proc/self/status') ? readFileSync('/proc/self/status', 'utf8') : '';
const hwmKiB = /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1];
console.log(JSON.stringify({ peakMiB: hwmKiB ? Math.round(Number(hwmKiB) / 1024) : null }));
