import type { DbHandle } from './client.ts';
import type { RateHit } from './rate-limits.ts';

/** At most this many keys in one statement; a larger batch goes out as several. */
const MAX_KEYS_PER_STATEMENT = 500;

interface Waiter {
  resolve: (hit: RateHit) => void;
  reject: (err: unknown) => void;
}

interface PendingKey {
  windowMs: number;
  waiters: Waiter[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Counts rate-limit hits in `rate_limits`, the hits of one turn of the event loop in one
 * statement: under load every request's counter would otherwise cost the API and PostgreSQL a
 * round trip of its own (the purchase race: one of its 2.6 round trips per answer). The
 * statement is the single-key upsert over `unnest`: still one atomic statement, so processes
 * sharing the table count exactly; keys go in sorted order, so two batches take their row locks
 * in one order and cannot deadlock. N hits of one key in a batch add N and answer the window's
 * last N counts, one each.
 */
export function createHitBatcher(handle: Pick<DbHandle, 'query'>, now: () => number) {
  let pending = new Map<string, PendingKey>();
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    const batch = pending;
    pending = new Map();
    const keys = [...batch.keys()].sort();
    for (let i = 0; i < keys.length; i += MAX_KEYS_PER_STATEMENT) {
      void send(keys.slice(i, i + MAX_KEYS_PER_STATEMENT), batch);
    }
  };

  async function send(keys: string[], batch: Map<string, PendingKey>): Promise<void> {
    const t = now();
    const counts = keys.map((k) => batch.get(k)!.waiters.length);
    const resets = keys.map((k) => iso(t + batch.get(k)!.windowMs));
    try {
      const rows = await handle.query<{ key: string; hits: number; reset_ms: number }>(
        `INSERT INTO rate_limits AS r (key, hits, reset_at)
           SELECT k, n, reset FROM unnest($1::text[], $2::int[], $3::timestamptz[]) AS u(k, n, reset) ORDER BY k
         ON CONFLICT (key) DO UPDATE SET
           hits = CASE WHEN r.reset_at <= $4::timestamptz THEN excluded.hits ELSE r.hits + excluded.hits END,
           reset_at = CASE WHEN r.reset_at <= $4::timestamptz THEN excluded.reset_at ELSE r.reset_at END
         RETURNING key, hits, (extract(epoch from reset_at) * 1000)::float8 AS reset_ms`,
        [keys, counts, resets, iso(t)],
      );
      const byKey = new Map(rows.map((r) => [r.key, r]));
      for (const key of keys) {
        const { waiters } = batch.get(key)!;
        const row = byKey.get(key);
        if (!row) {
          for (const w of waiters) w.reject(new Error(`rate limit ${key}: no row returned`));
          continue;
        }
        const last = Number(row.hits);
        const resetAtMs = Number(row.reset_ms);
        for (const [i, w] of waiters.entries()) w.resolve({ hits: last - waiters.length + 1 + i, resetAtMs });
      }
    } catch (err) {
      for (const key of keys) for (const w of batch.get(key)!.waiters) w.reject(err);
    }
  }

  return (key: string, windowMs: number): Promise<RateHit> =>
    new Promise<RateHit>((resolve, reject) => {
      let entry = pending.get(key);
      if (!entry) {
        entry = { windowMs, waiters: [] };
        pending.set(key, entry);
      }
      entry.waiters.push({ resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}
