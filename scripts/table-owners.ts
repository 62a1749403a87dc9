/**
 * The house rules "who writes which table" and "who reads another module's table"
 * (docs/ARCHITECTURE.md) against the code: the tables' rows, the tables of the Drizzle schema, every
 * write found in code (Drizzle insert/update/delete on a table object, raw SQL INSERT INTO/UPDATE/
 * DELETE FROM in strings and sql`` templates) with the app and server module that makes it, and every
 * read of a server module (a table or SQL helper imported from `@pm/db`, raw SQL FROM/JOIN). Test
 * code may read and write any table to set up its case and is skipped.
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

/** A read of a table by a server module's own code. */
export interface Read {
  file: string;
  line: number;
  table: string;
  module: string;
}

/** A row of "Who reads another module's table": a table and the server modules listed as its readers. */
export interface ReaderRow {
  table: string;
  readers: string[];
}

/** The rows of the "Who reads another module's table" section (the readers cell: backticked module names). */
export function parseReaderTable(markdown: string): ReaderRow[] {
  const section = markdown.split(/^## Who reads another module's table$/m)[1]?.split(/^## /m)[0] ?? '';
  const rows: ReaderRow[] = [];
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5 || !cells[1]!.startsWith('`')) continue;
    for (const [, table] of cells[1]!.matchAll(/`([^`]+)`/g)) {
      rows.push({ table: table!, readers: [...cells[2]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!) });
    }
  }
  return rows;
}

/**
 * The SQL helpers the schema exports (`export const ACTIVE_LEASE = sql`...``) and the tables each one
 * reads: a table object inside `${}` or a table name after FROM/JOIN.
 */
export function schemaHelpers(schemaSources: string[], tables: Map<string, string>): Map<string, string[]> {
  const helpers = new Map<string, string[]>();
  for (const src of schemaSources.map(stripComments)) {
    for (const m of src.matchAll(/export const (\w+)\s*=\s*sql\b([\s\S]*?);\n/g)) {
      const read = new Set<string>();
      for (const [variable, name] of tables) {
        if (new RegExp(`\\$\\{${variable}[.}]`).test(m[2]!)) read.add(name);
      }
      for (const r of m[2]!.matchAll(SQL_READ)) if ([...tables.values()].includes(r[1]!)) read.add(r[1]!);
      if (read.size > 0) helpers.set(m[1]!, [...read]);
    }
  }
  return helpers;
}

const SQL_READ = /\b(?:FROM|JOIN)\s+"?([a-z_][a-z0-9_]*)"?/gi;

/** The reads of one server module file: what it imports from `@pm/db` that is a table or reads one, and raw FROM/JOIN. */
export function findReads(
  file: string,
  src: string,
  tables: Map<string, string>,
  helpers: Map<string, string[]>,
): Read[] {
  const module = writerOf(file).module;
  if (!module) return [];
  const code = stripComments(src);
  const lineOf = (index: number) => code.slice(0, index).split('\n').length;
  const reads: Read[] = [];
  for (const imp of code.matchAll(/import\s*\{([^}]*)\}\s*from\s*'@pm\/db'/g)) {
    for (const raw of imp[1]!.split(',')) {
      const name = raw
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)[0]!;
      const read = tables.has(name) ? [tables.get(name)!] : (helpers.get(name) ?? []);
      for (const table of read) reads.push({ file, line: lineOf(imp.index), table, module });
    }
  }
  const known = new Set(tables.values());
  for (const m of code.matchAll(SQL_READ)) {
    if (known.has(m[1]!)) reads.push({ file, line: lineOf(m.index), table: m[1]!, module });
  }
  return reads;
}

/** The server module that owns a table (`server (leases: …)`), if a server module does. */
export const ownerModule = (row: OwnerRow) => /^server \((\w+)/.exec(row.owner)?.[1];

/**
 * The refusal of one read: a server module reads a table another server module owns only when the
 * table's row names it (as a writer) or "Who reads another module's table" lists it.
 */
export function checkRead(read: Read, rows: OwnerRow[], readers: ReaderRow[]): string | undefined {
  const row = rows.find((r) => r.tables.includes(read.table));
  const owner = row && ownerApp(row) === 'server' ? ownerModule(row) : undefined;
  if (!row || !owner || owner === read.module) return undefined;
  if (mentions(`${row.owner} ${row.also}`, read.module)) return undefined;
  if (readers.some((r) => r.table === read.table && r.readers.includes(read.module))) return undefined;
  return `${read.file}:${read.line} reads ${read.table} from the server module ${read.module}; ask the ${owner} module (its service, or a join it exposes) or list the read in "Who reads another module's table"`;
}

/** Every read of the server modules' own (non-test) code. */
export function repoReads(root: string, tables: Map<string, string>, helpers: Map<string, string[]>): Read[] {
  return sourceFiles(join(root, 'apps/server/src/modules'), root)
    .filter((f) => !isTestCode(f))
    .flatMap((file) => findReads(file, readFileSync(join(root, file), 'utf8'), tables, helpers));
}
