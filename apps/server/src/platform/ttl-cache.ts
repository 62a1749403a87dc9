/**
 * A small in-process cache for answers many callers share (the shop's pages, segments and
 * country totals, the price list): each key is loaded once however many requests ask at the same
 * time, kept `ttlMs`, then served up to `staleMs` longer while one background load refreshes it.
 * `clear()` drops everything, including loads still running, so a write in this process is seen by
 * the next read. Ages come from a monotonic clock, never the business clock tests may fix.
 */

export interface TtlCacheOptions {
  /** How long a loaded value is served as is; 0 disables the cache (every get loads). */
  ttlMs: number;
  /** How much longer a value may be served while a background load replaces it. */
  staleMs?: number;
  /** Entries kept; the least recently used one goes first. */
  maxEntries: number;
  /** Monotonic milliseconds (default `performance.now`). */
  clock?: () => number;
}

interface Entry<V> {
  value?: V;
  /** When the load that produced `value` started: the data is at least this old. */
  loadedAt: number;
  pending?: Promise<V>;
}

/** A keyed cache with single-flight loads, a freshness window, stale-while-revalidate and LRU eviction. */
export interface TtlCache<V> {
  /** The cached value of `key`, or `load()`'s; `fresh` skips the cached value (the new one is stored). */
  get(key: string, load: () => Promise<V>, o?: { fresh?: boolean }): Promise<V>;
  /** Forgets every entry; loads already running are not stored. */
  clear(): void;
  /** Forgets one key; a load of it already running is not stored. */
  delete(key: string): void;
  /** Entries held (for tests and metrics). */
  readonly size: number;
}

/** Creates a TtlCache. */
export function createTtlCache<V>(options: TtlCacheOptions): TtlCache<V> {
  const clock = options.clock ?? (() => performance.now());
  const staleMs = options.staleMs ?? 0;
  const entries = new Map<string, Entry<V>>();
  let generation = 0;

  function store(key: string, entry: Entry<V>): void {
    entries.delete(key);
    entries.set(key, entry);
    while (entries.size > options.maxEntries) entries.delete(entries.keys().next().value as string);
  }

  function startLoad(key: string, load: () => Promise<V>, previous: Entry<V> | undefined): Promise<V> {
    const startedAt = clock();
    const startedIn = generation;
    const pending = load().then(
      (value) => {
        if (startedIn === generation && entries.get(key)?.pending === pending) {
          store(key, { value, loadedAt: startedAt });
        }
        return value;
      },
      (error: unknown) => {
        // Keep serving what there was (until it is too old); the next get tries again.
        const now = entries.get(key);
        if (now?.pending === pending) {
          if (now.value === undefined) entries.delete(key);
          else delete now.pending;
        }
        throw error;
      },
    );
    store(key, { ...previous, loadedAt: previous?.loadedAt ?? startedAt, pending });
    return pending;
  }

  return {
    get(key, load, o = {}) {
      if (options.ttlMs <= 0) return load();
      const entry = entries.get(key);
      if (o.fresh) return startLoad(key, load, entry);
      if (entry?.value !== undefined) {
        const age = clock() - entry.loadedAt;
        if (age < options.ttlMs) {
          store(key, entry);
          return Promise.resolve(entry.value);
        }
        if (age < options.ttlMs + staleMs) {
          // A failed background refresh is not this caller's error: it keeps the stale value.
          if (!entry.pending) startLoad(key, load, entry).catch(() => {});
          return Promise.resolve(entry.value);
        }
      }
      return entry?.pending ?? startLoad(key, load, undefined);
    },
    clear() {
      generation++;
      entries.clear();
    },
    delete(key) {
      // A running load checks that its entry is still the one it made: gone, it stores nothing.
      entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
}
