import type { DbHandle } from './client.ts';

/** One counted hit: how many in the current window and when the window ends (epoch ms). */
export interface RateHit {
  hits: number;
  resetAtMs: number;
}

/**
 * The account slow-down's schedule: the first `freeFailures` hits cost nothing; after that each
 * hit makes the next one wait `baseDelayMs`, doubling per hit, at most `maxDelayMs`. The count is
 * forgotten `forgetAfterMs` after the last hit.
 */
export interface PaceSchedule {
  freeFailures: number;
  baseDelayMs: number;
  maxDelayMs: number;
  forgetAfterMs: number;
}

export type PaceAnswer = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * Rate-limit counters every process shares. Keys name the app, the limit and the caller
 * (`market:POST /leases:user-1`, `id:failsPerIpDay:203.0.113.5`).
 */
export interface RateCounter {
  /** Counts one hit in a fixed window of `windowMs` (a window that has ended starts over at 1). */
  hit(key: string, windowMs: number): Promise<RateHit>;
  /** Gives one hit of the current window back (never below 0). */
  giveBack(key: string): Promise<void>;
  /** Forgets the key. */
  clear(key: string): Promise<void>;
  /**
   * Takes the next slot of a slow-down, or answers how long to wait. The slot is reserved in the
   * same statement that checks it, so parallel callers cannot share one.
   */
  pace(key: string, schedule: PaceSchedule): Promise<PaceAnswer>;
}

const iso = (ms: number) => new Date(ms).toISOString();
const MS = (column: string) => `(extract(epoch from ${column}) * 1000)::float8`;

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

/**
 * Counts rate-limit hits in `rate_limits`, the hits of one turn of the event loop in one
 * statement: under load every request's counter would otherwise cost the API and PostgreSQL a
 * round trip of its own (the purchase race: one of its 2.6 round trips per answer). The
 * statement is the single-key upsert over `unnest`: still one atomic statement, so processes
 * sharing the table count exactly; keys go in sorted order, so two batches take their row locks
 * in one order and cannot deadlock. N hits of one key in a batch add N and answer the window's
 * last N counts, one each.
 */
function createHitBatcher(handle: Pick<DbHandle, 'query'>, now: () => number) {
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
         RETURNING key, hits, ${MS('reset_at')} AS reset_ms`,
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

/** The wait after `hits` failures, in SQL over parameters $3 free, $4 base, $5 max (ms). */
const delayAfter = (hits: string) =>
  `CASE WHEN ${hits} < $3 THEN 0 ELSE LEAST($5::float8, $4::float8 * power(2, LEAST(${hits} - $3, 30))) END`;

/**
 * The counters in the `rate_limits` table: each call is one atomic statement (INSERT … ON
 * CONFLICT DO UPDATE … RETURNING), so N processes allow the limit once, not N times; the hits of
 * one turn of the event loop share one statement (`createHitBatcher`). Works on
 * PostgreSQL and PGlite. `now` is the caller's clock (hosts keep time with NTP; tests move it).
 */
export function createPgRateCounter(
  handle: Pick<DbHandle, 'query'>,
  now: () => number = Date.now,
): RateCounter {
  return {
    hit: createHitBatcher(handle, now),
    async giveBack(key) {
      await handle.query(
        'UPDATE rate_limits SET hits = GREATEST(hits - 1, 0) WHERE key = $1 AND reset_at > $2::timestamptz',
        [key, iso(now())],
      );
    },
    async clear(key) {
      await handle.query('DELETE FROM rate_limits WHERE key = $1', [key]);
    },
    async pace(key, s) {
      const t = now();
      // A row past reset_at is forgotten (starts at 1); one whose not_before is ahead is left alone.
      const fresh = 'r.reset_at <= $2::timestamptz';
      const next = `CASE WHEN ${fresh} THEN 1 ELSE r.hits + 1 END`;
      const taken = await handle.query(
        `INSERT INTO rate_limits AS r (key, hits, reset_at, not_before)
           VALUES ($1, 1, $6::timestamptz, $2::timestamptz + (${delayAfter('1')}) * interval '1 millisecond')
         ON CONFLICT (key) DO UPDATE SET
           hits = ${next},
           reset_at = excluded.reset_at,
           not_before = $2::timestamptz + (${delayAfter(next)}) * interval '1 millisecond'
         WHERE ${fresh} OR r.not_before IS NULL OR r.not_before <= $2::timestamptz
         RETURNING hits`,
        [key, iso(t), s.freeFailures, s.baseDelayMs, s.maxDelayMs, iso(t + s.forgetAfterMs)],
      );
      if (taken.length > 0) return { ok: true };
      const [row] = await handle.query<{ nb: number | null }>(
        `SELECT ${MS('not_before')} AS nb FROM rate_limits WHERE key = $1`,
        [key],
      );
      const wait = row?.nb == null ? 1000 : Number(row.nb) - t;
      return { ok: false, retryAfterMs: Math.max(1, wait) };
    },
  };
}

/** Deletes rows whose window has ended before `beforeMs`; returns how many. */
export async function sweepRateLimits(handle: Pick<DbHandle, 'query'>, beforeMs: number = Date.now()) {
  const rows = await handle.query('DELETE FROM rate_limits WHERE reset_at <= $1::timestamptz RETURNING 1', [
    iso(beforeMs),
  ]);
  return rows.length;
}

/**
 * The same counters in this process's memory (bounded, oldest dropped first): for unit tests and
 * tools that have no database. Never for a deployment, where processes must share the count.
 */
export function createMemoryRateCounter(now: () => number = Date.now, maxEntries = 100_000): RateCounter {
  const rows = new Map<string, { hits: number; resetAtMs: number; notBeforeMs: number | null }>();
  const put = (key: string, row: { hits: number; resetAtMs: number; notBeforeMs: number | null }) => {
    rows.delete(key);
    rows.set(key, row);
    if (rows.size > maxEntries) rows.delete(rows.keys().next().value as string);
  };
  return {
    async hit(key, windowMs) {
      const t = now();
      const r = rows.get(key);
      const row =
        r && r.resetAtMs > t
          ? { ...r, hits: r.hits + 1 }
          : { hits: 1, resetAtMs: t + windowMs, notBeforeMs: null };
      put(key, row);
      return { hits: row.hits, resetAtMs: row.resetAtMs };
    },
    async giveBack(key) {
      const r = rows.get(key);
      if (r && r.resetAtMs > now()) r.hits = Math.max(0, r.hits - 1);
    },
    async clear(key) {
      rows.delete(key);
    },
    async pace(key, s) {
      const t = now();
      const r = rows.get(key);
      const live = r && r.resetAtMs > t ? r : undefined;
      if (live?.notBeforeMs != null && live.notBeforeMs > t)
        return { ok: false, retryAfterMs: live.notBeforeMs - t };
      const hits = (live?.hits ?? 0) + 1;
      const delay =
        hits < s.freeFailures
          ? 0
          : Math.min(s.maxDelayMs, s.baseDelayMs * 2 ** Math.min(hits - s.freeFailures, 30));
      put(key, { hits, resetAtMs: t + s.forgetAfterMs, notBeforeMs: t + delay });
      return { ok: true };
    },
  };
}
