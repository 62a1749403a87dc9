/**
 * Database round trips of a bench's API process: every `pg` client query (the pool's, and a
 * transaction's BEGIN, statements and COMMIT) counted by statement, in the process itself.
 * `countQueries()` in the server (api-server.ts, purchases.ts --serve) patches the driver and
 * writes the counts to QUERY_COUNT_FILE on each SIGUSR2; `readQueryCounts(pid, file)` in the
 * bench asks for them and waits for the answer. PostgreSQL here has no pg_stat_statements.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import pg from 'pg';

/** Cumulative counts: the total, and per statement (its first 80 characters, spaces squeezed). */
export interface QueryCounts {
  seq: number;
  total: number;
  byStatement: Record<string, number>;
}

const shape = (text: unknown): string =>
  typeof text === 'string'
    ? text.replace(/\s+/g, ' ').trim().slice(0, 80)
    : typeof text === 'object' && text && 'text' in text
      ? shape((text as { text: unknown }).text)
      : '?';

/** Patches `pg.Client#query` to count; answers SIGUSR2 by writing the counts to `file`. */
export function countQueries(file: string): void {
  const counts: QueryCounts = { seq: 0, total: 0, byStatement: {} };
  const original = pg.Client.prototype.query as (...a: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...a: unknown[]) {
    counts.total++;
    const key = shape(a[0]);
    counts.byStatement[key] = (counts.byStatement[key] ?? 0) + 1;
    return original.apply(this, a);
  } as typeof pg.Client.prototype.query;
  process.on('SIGUSR2', () => {
    counts.seq++;
    // Whole or not at all: the reader polls the file.
    writeFileSync(`${file}.tmp`, JSON.stringify(counts));
    renameSync(`${file}.tmp`, file);
  });
}

/** Asks the process for its counts (SIGUSR2) and waits until it has written them. */
export async function readQueryCounts(pid: number, file: string): Promise<QueryCounts> {
  const read = (): QueryCounts | undefined => {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as QueryCounts;
    } catch {
      return undefined;
    }
  };
  const before = read()?.seq ?? 0;
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 5000;
  for (;;) {
    const now = read();
    if (now && now.seq > before) return now;
    if (Date.now() > deadline) throw new Error(`process ${pid} wrote no query counts to ${file}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The counts between two readings, per answer: total and the statements by how often they ran. */
export function perAnswer(
  before: QueryCounts,
  after: QueryCounts,
  answers: number,
): { total: number; top: [string, number][] } {
  const top = Object.entries(after.byStatement)
    .map(([k, n]): [string, number] => [k, (n - (before.byStatement[k] ?? 0)) / answers])
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  return { total: (after.total - before.total) / answers, top };
}
