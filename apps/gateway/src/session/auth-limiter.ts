import { isIPv6 } from 'node:net';

/**
 * The source a limit counts against: an IPv4 address as it is, an IPv6 address by its /64 (one
 * customer line or host gets a whole /64, so counting single addresses would give each attacker
 * 2^64 fresh starts).
 */
export function sourceKey(ip: string): string {
  if (!isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // An embedded dotted IPv4 tail (::ffff:1.2.3.4 forms) sits in the low 64 bits: it never matters here.
  const groups = ip.includes('::')
    ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => (Number.parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
}

interface Failures {
  count: number;
  lastMs: number;
}

interface SourceFailures extends Failures {
  /** The part of `count` each user name failed (at most MAX_USERS_PER_SOURCE tracked). */
  byUser: Map<string, number>;
}

const MAX_USERS_PER_SOURCE = 64;

export interface FailureLimiterOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Sources and user names remembered each (oldest dropped first). */
  maxEntries?: number;
  forgetAfterMs?: number;
  /** Handshakes one source (IPv4 address, IPv6 /64) may have in progress at once. */
  maxHandshakesPerSource?: number;
}

/**
 * Slows down repeated login failures (SOCKS and the HTTP proxy, through `checkLogin`). Each
 * failure is counted against its source (IPv4 address, IPv6 /64) and its user name (the
 * credential); the failed answer waits
 * `baseDelayMs`, doubling per earlier failure of the busier of the two, up to `maxDelayMs`.
 * A success clears only what that credential failed (from anywhere, and its part of the
 * source's count): a customer holding one valid lease cannot wipe their guesses at others by
 * logging in between them. Successful logins are never delayed. Entries are bounded and expire
 * after `forgetAfterMs` of quiet. It also caps the handshakes a source has in progress at once,
 * so a paused (delayed) failure cannot be multiplied into thousands of held sockets.
 */
export class FailureLimiter {
  private readonly sources = new Map<string, SourceFailures>();
  private readonly users = new Map<string, Failures>();
  private readonly handshakes = new Map<string, number>();
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxEntries: number;
  private readonly forgetAfterMs: number;
  readonly maxHandshakesPerSource: number;

  constructor(opts: FailureLimiterOptions = {}) {
    this.baseDelayMs = opts.baseDelayMs ?? 100;
    this.maxDelayMs = opts.maxDelayMs ?? 5000;
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.forgetAfterMs = opts.forgetAfterMs ?? 10 * 60_000;
    this.maxHandshakesPerSource = opts.maxHandshakesPerSource ?? 256;
  }

  private delay(count: number): number {
    if (count <= 1) return 0;
    return Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** Math.min(count - 2, 20));
  }

  /** Re-inserts `key` last (least recently failed first) and drops the oldest past the bound. */
  private touch<T extends Failures>(map: Map<string, T>, key: string, value: T): void {
    map.delete(key);
    map.set(key, value);
    if (map.size > this.maxEntries) {
      const oldest = map.keys().next().value;
      if (oldest !== undefined) map.delete(oldest);
    }
  }

  /** Records a failed login of `user` from `ip`; returns how long to wait before answering it. */
  fail(ip: string, user: string, nowMs = Date.now()): number {
    const key = sourceKey(ip);
    let s = this.sources.get(key);
    if (s && nowMs - s.lastMs > this.forgetAfterMs) s = undefined;
    s ??= { count: 0, lastMs: nowMs, byUser: new Map() };
    s.count += 1;
    s.lastMs = nowMs;
    const part = s.byUser.get(user);
    if (part !== undefined || s.byUser.size < MAX_USERS_PER_SOURCE) s.byUser.set(user, (part ?? 0) + 1);
    this.touch(this.sources, key, s);

    let u = this.users.get(user);
    if (u && nowMs - u.lastMs > this.forgetAfterMs) u = undefined;
    const userCount = (u?.count ?? 0) + 1;
    this.touch(this.users, user, { count: userCount, lastMs: nowMs });
    return Math.max(this.delay(s.count), this.delay(userCount));
  }

  /** A successful login of `user` from `ip`: forgets that credential's failures, nothing else. */
  succeed(ip: string, user: string): void {
    this.users.delete(user);
    const key = sourceKey(ip);
    const s = this.sources.get(key);
    const part = s?.byUser.get(user);
    if (!s || part === undefined) return;
    s.byUser.delete(user);
    s.count -= part;
    if (s.count <= 0) this.sources.delete(key);
  }

  /** Admits one more handshake from `ip`; false when its source has the maximum in progress. */
  openHandshake(ip: string): boolean {
    const key = sourceKey(ip);
    const n = this.handshakes.get(key) ?? 0;
    if (n >= this.maxHandshakesPerSource) return false;
    this.handshakes.set(key, n + 1);
    return true;
  }

  /** The handshake admitted by `openHandshake(ip)` ended (relaying, refused or closed). */
  closeHandshake(ip: string): void {
    const key = sourceKey(ip);
    const n = this.handshakes.get(key) ?? 0;
    if (n <= 1) this.handshakes.delete(key);
    else this.handshakes.set(key, n - 1);
  }

  /** Sources and user names with failures on record. */
  get size(): number {
    return this.sources.size + this.users.size;
  }

  /** Sources with a handshake in progress. */
  get handshakingSources(): number {
    return this.handshakes.size;
  }
}
