/**
 * Slows down repeated authentication failures per source address: the first failure is
 * answered at once, then the delay doubles from `baseDelayMs` up to `maxDelayMs`. The map is
 * bounded (oldest entries are dropped) and entries expire after `forgetAfterMs` of quiet.
 */
export class FailureLimiter {
  private readonly failures = new Map<string, { count: number; lastMs: number }>();
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxEntries: number;
  private readonly forgetAfterMs: number;

  constructor(
    opts: { baseDelayMs?: number; maxDelayMs?: number; maxEntries?: number; forgetAfterMs?: number } = {},
  ) {
    this.baseDelayMs = opts.baseDelayMs ?? 100;
    this.maxDelayMs = opts.maxDelayMs ?? 5000;
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.forgetAfterMs = opts.forgetAfterMs ?? 10 * 60_000;
  }

  /** Records a failure from `ip`; returns how long to wait before answering it. */
  fail(ip: string, nowMs = Date.now()): number {
    let f = this.failures.get(ip);
    if (f && nowMs - f.lastMs > this.forgetAfterMs) f = undefined;
    const count = (f?.count ?? 0) + 1;
    // Re-insert so the map's iteration order is least-recently-failed first.
    this.failures.delete(ip);
    this.failures.set(ip, { count, lastMs: nowMs });
    if (this.failures.size > this.maxEntries) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
    if (count <= 1) return 0;
    return Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** Math.min(count - 2, 20));
  }

  /** A successful authentication clears the address's record. */
  succeed(ip: string): void {
    this.failures.delete(ip);
  }

  get size(): number {
    return this.failures.size;
  }
}
