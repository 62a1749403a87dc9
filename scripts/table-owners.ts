/**
 * The house rule "who writes which table" (docs/ARCHITECTURE.md) against the code: the table's rows,
 * the tables of the Drizzle schema, and every write found in code (Drizzle insert/update/delete on a
 * table object, raw SQL INSERT INTO/UPDATE/DELETE FROM in strings and sql`` templates) with the app
 * and server module that makes it. Test code may write any table to set up its case and is skipped.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface OwnerRow {
  /** Table names of the first cell, without backticks (`deposit_index_*`, `pgboss.*` stay wildcards). */
  tables: string[];
  owner: string;
  also: string;
}

export interface Write {
  file: string;
  line: number;
  table: string;
  /** `server`, `identity`, `gateway`, `devnet`, `@pm/db` or `launcher`. */
  app: string;
  /** The server module (`modules/<name>/`) of the write, if any. */
  module?: string;
}

/** The rows of the "Who writes which table" section. */
export function parseOwnerTable(markdown: string): OwnerRow[] {
  const section = markdown.split(/^## Who writes which table$/m)[1]?.split(/^## /m)[0] ?? '';
  const rows: OwnerRow[] = [];
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5 || !cells[1]!.startsWith('`')) continue;
    const tables = [...cells[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    rows.push({ tables, owner: cells[2]!, also: cells[3]! });
  }
  return rows;
}

/** Drizzle table variable -> SQL name, from `export const x = pgTable('name', ...)` of the schema files. */
export function schemaTables(schemaSources: string[]): Map<string, string> {
  const tables = new Map<string, string>();
  for (const src of schemaSources) {
    for (const m of src.matchAll(/export const (\w+) = pgTable\(\s*'(\w+)'/g)) tables.set(m[1]!, m[2]!);
  }
  return tables;
}

/** Comments out of the way (kept as blank lines so line numbers stay right); `://` in strings survives. */
const stripComments = (src: string) =>
  src.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|[\s;])\/\/.*$/gm, '$1');

/** SQL keywords of a write; UPDATE after DO/FOR/ON/KEY (upserts, row locks, foreign keys) is not one. */
const RAW_WRITE =
  /\b(?:INSERT\s+INTO|(?<!(?:DO|FOR|ON|KEY)\s+)UPDATE|DELETE\s+FROM)\s+"?([a-z_][a-z0-9_]*)"?/g;
const DRIZZLE_WRITE = /\.(?:insert|update|delete)\(\s*(\w+)\s*\)/g;

/** The writes of one source file to the known tables. */
export function findWrites(file: string, src: string, tables: Map<string, string>): Omit<Write, 'app'>[] {
  const code = stripComments(src);
  const known = new Set(tables.values());
  const lineOf = (index: number) => code.slice(0, index).split('\n').length;
  const writes: Omit<Write, 'app'>[] = [];
  for (const m of code.matchAll(DRIZZLE_WRITE)) {
    const table = tables.get(m[1]!);
    if (table) writes.push({ file, line: lineOf(m.index), table });
  }
  for (const m of code.matchAll(RAW_WRITE)) {
    if (known.has(m[1]!)) writes.push({ file, line: lineOf(m.index), table: m[1]! });
  }
  return writes;
}

/** Test code: tests, test kits and helpers, the factories of @pm/db/testing, benches, migrations. */
export const isTestCode = (file: string) =>
  /\.(test|e2e|testkit)\.ts$|(^|\/)(bench|e2e|test|drizzle)\//.test(file) ||
  /^packages\/db\/src\/(testing|factories)\.ts$|^apps\/identity\/src\/test-support\.ts$/.test(file);

/** Who a file writes as: its app, and for the server its module. */
export function writerOf(file: string): Pick<Write, 'app' | 'module'> {
  const mod = /^apps\/server\/src\/modules\/([^/]+)\//.exec(file);
  if (mod) return { app: 'server', module: mod[1]! };
  const app = /^apps\/([^/]+)\//.exec(file);
  if (app) return { app: app[1]! };
  if (file.startsWith('packages/db/')) return { app: '@pm/db' };
  if (file === 'scripts/start.ts') return { app: 'launcher' };
  return { app: file };
}

const mentions = (text: string, word: string) =>
  new RegExp(`(^|[^\\w@-])${word.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}([^\\w-]|$)`).test(text);
/** The app of an owner cell: its first word. */
export const ownerApp = (row: OwnerRow) => row.owner.split(/[\s(]/)[0]!;

/** The refusals of one write: its app must own the table or be named among its other writers. */
export function checkWrite(write: Write, rows: OwnerRow[]): string | undefined {
  const where = `${write.file}:${write.line} writes ${write.table}`;
  const row = rows.find((r) => r.tables.includes(write.table));
  if (!row) return `${where}, a table missing from docs/ARCHITECTURE.md`;
  if (write.app !== ownerApp(row) && !mentions(row.also, write.app)) {
    return `${where} as ${write.app}, neither its owner (${ownerApp(row)}) nor listed in "also written by"`;
  }
  if (write.module && !mentions(`${row.owner} ${row.also}`, write.module)) {
    return `${where} from the server module ${write.module}, which its row does not name`;
  }
  return undefined;
}

function sourceFiles(dir: string, root: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sourceFiles(p, root, out);
    else if (/\.(ts|tsx|js|mjs)$/.test(name)) out.push(relative(root, p));
  }
  return out;
}

/** Every write of the repository's own (non-test) code; the web client and the add-on hold no SQL. */
export function repoWrites(root: string, tables: Map<string, string>): Write[] {
  const files = [
    ...['server', 'identity', 'gateway', 'devnet', 'agent'].flatMap((a) =>
      sourceFiles(join(root, 'apps', a), root),
    ),
    ...sourceFiles(join(root, 'packages'), root),
    'scripts/start.ts',
  ].filter((f) => !isTestCode(f) && !f.startsWith('packages/db/src/schema/'));
  return files.flatMap((file) =>
    findWrites(file, readFileSync(join(root, file), 'utf8'), tables).map((w) => ({
      ...w,
      ...writerOf(file),
    })),
  );
}
