import { RateLimiterMemory } from 'rate-limiter-flexible';

export const TOO_MANY = 'Too many attempts, try again later.';

export interface LimitSpec {
  points: number;
  /** Window in seconds. */
  duration: number;
}
export type LimitName =
  | 'failsPerEmailIp'
  | 'failsPerIpDay'
  | 'signupPerIp'
  | 'signupPerEmail'
  | 'resetPerIp'
  | 'resetPerEmail';

/** Limits in one place (ASVS 6.3.1): brute force per (email, IP), stuffing per IP, abuse of mail sends. */
export const LIMITS: Record<LimitName, LimitSpec> = {
  /** Consecutive failed sign-ins for one email from one IP (reset by a success), as Auth0's default. */
  failsPerEmailIp: { points: 10, duration: 60 * 60 },
  /** Failed sign-ins from one IP per day, whatever the email. */
  failsPerIpDay: { points: 100, duration: 24 * 60 * 60 },
  signupPerIp: { points: 10, duration: 60 * 60 },
  signupPerEmail: { points: 5, duration: 60 * 60 },
  resetPerIp: { points: 20, duration: 60 * 60 },
  resetPerEmail: { points: 5, duration: 60 * 60 },
};

/**
 * The per-account slow-down (NIST SP 800-63B 5.2.2): whatever the source addresses, an email's
 * first `freeFailures` consecutive failures cost nothing; every later attempt must wait
 * `baseDelayS`, doubling per failure, at most `maxDelayS`. Never a lockout: at the cap one
 * attempt per `maxDelayS` is still allowed, a correct password resets the count, and so does a
 * reset through the mailed link. Failures are forgotten after `forgetAfterS` without one.
 */
export interface AccountSlowdown {
  freeFailures: number;
  baseDelayS: number;
  maxDelayS: number;
  forgetAfterS: number;
}

export const ACCOUNT_SLOWDOWN: AccountSlowdown = {
  freeFailures: 5,
  baseDelayS: 15,
  maxDelayS: 15 * 60,
  forgetAfterS: 24 * 60 * 60,
};

/** Bound on the per-account table (oldest entries are dropped first). */
const MAX_ACCOUNT_ENTRIES = 100_000;

/** One admitted sign-in attempt: report how it ended exactly once. */
export interface LoginTicket {
  /** The password was right: gives the IP's point back and clears the email's failures. */
  succeeded(): Promise<void>;
  /** The password was wrong (the points stay taken). */
  failed(): Promise<void>;
}

export type LoginAdmission = { ok: true; ticket: LoginTicket } | { ok: false; retryAfterS: number };

export interface Limits {
  /**
   * Takes the attempt's points before the password is checked, so parallel guesses cannot pass
   * the limit (and argon2 work stays bounded): refused when the (email, IP) pair, the IP or the
   * account's slow-down says so. `knownIp`: the IP of the account's last successful sign-in,
   * which the account's slow-down lets through (a stranger's failures cannot keep the owner out).
   */
  beginLogin(email: string, ip: string, opts?: { knownIp?: boolean }): Promise<LoginAdmission>;
  /** After a password reset through the mailed link: the account's slow-down starts over. */
  clearAccount(email: string): void;
  /** Counts one sign-up attempt; false when over the limit. */
  takeSignup(email: string, ip: string): Promise<boolean>;
  /** Counts one reset-mail request; false when over the limit. */
  takeReset(email: string, ip: string): Promise<boolean>;
}

export interface LimitOverrides extends Partial<Record<LimitName, LimitSpec>> {
  account?: Partial<AccountSlowdown>;
}

/** Take one point from each limiter; false (without throwing) as soon as one is out of points. */
async function takeAll(pairs: [RateLimiterMemory, string][]): Promise<boolean> {
  let ok = true;
  for (const [limiter, key] of pairs) {
    try {
      await limiter.consume(key);
    } catch {
      ok = false;
    }
  }
  return ok;
}

/** Seconds a refused consume asks the caller to wait (at least 1). */
function retryAfter(e: unknown): number {
  const ms = (e as { msBeforeNext?: number } | undefined)?.msBeforeNext ?? 1000;
  return Math.max(1, Math.ceil(ms / 1000));
}

/** Consecutive failures per email and when the next attempt is allowed (in memory, bounded). */
function createAccountSlowdown(s: AccountSlowdown, now: () => number) {
  const entries = new Map<string, { failures: number; nextAtMs: number; lastMs: number }>();
  const delayMs = (failures: number) =>
    failures < s.freeFailures
      ? 0
      : Math.min(s.maxDelayS, s.baseDelayS * 2 ** Math.min(failures - s.freeFailures, 30)) * 1000;

  return {
    /**
     * Admits an attempt (counting it as a failure until it succeeds) or answers how long to wait.
     * The slot is reserved before the password check, so parallel attempts cannot share it.
     */
    admit(email: string): { ok: true } | { ok: false; retryAfterS: number } {
      const t = now();
      let e = entries.get(email);
      if (e && t - e.lastMs > s.forgetAfterS * 1000) e = undefined;
      const failures = e?.failures ?? 0;
      if (e && t < e.nextAtMs) return { ok: false, retryAfterS: Math.ceil((e.nextAtMs - t) / 1000) };
      entries.delete(email);
      entries.set(email, { failures: failures + 1, nextAtMs: t + delayMs(failures + 1), lastMs: t });
      if (entries.size > MAX_ACCOUNT_ENTRIES) entries.delete(entries.keys().next().value as string);
      return { ok: true };
    },
    clear(email: string): void {
      entries.delete(email);
    },
  };
}

/** In-memory limiters (per process); a multi-replica deployment would swap in RateLimiterPostgres. */
export function createLimits(overrides: LimitOverrides = {}, now: () => number = Date.now): Limits {
  const { account: accountOverrides, ...limitOverrides } = overrides;
  const l = { ...LIMITS, ...limitOverrides };
  const failsEmailIp = new RateLimiterMemory({ keyPrefix: 'fei', ...l.failsPerEmailIp });
  const failsIp = new RateLimiterMemory({ keyPrefix: 'fip', ...l.failsPerIpDay });
  const signupIp = new RateLimiterMemory({ keyPrefix: 'sip', ...l.signupPerIp });
  const signupEmail = new RateLimiterMemory({ keyPrefix: 'sem', ...l.signupPerEmail });
  const resetIp = new RateLimiterMemory({ keyPrefix: 'rip', ...l.resetPerIp });
  const resetEmail = new RateLimiterMemory({ keyPrefix: 'rem', ...l.resetPerEmail });
  const accounts = createAccountSlowdown({ ...ACCOUNT_SLOWDOWN, ...accountOverrides }, now);
  const pair = (email: string, ip: string) => `${email}|${ip}`;

  return {
    async beginLogin(email, ip, opts = {}) {
      // RateLimiterMemory counts synchronously, so of N parallel attempts only the allowed number pass.
      try {
        await failsIp.consume(ip);
      } catch (e) {
        return { ok: false, retryAfterS: retryAfter(e) };
      }
      try {
        await failsEmailIp.consume(pair(email, ip));
      } catch (e) {
        await failsIp.reward(ip);
        return { ok: false, retryAfterS: retryAfter(e) };
      }
      if (!opts.knownIp) {
        const admitted = accounts.admit(email);
        if (!admitted.ok) {
          await Promise.all([failsIp.reward(ip), failsEmailIp.reward(pair(email, ip))]);
          return admitted;
        }
      }
      let reported = false;
      return {
        ok: true,
        ticket: {
          async succeeded() {
            if (reported) return;
            reported = true;
            accounts.clear(email);
            await Promise.all([failsIp.reward(ip), failsEmailIp.delete(pair(email, ip))]);
          },
          async failed() {
            reported = true;
          },
        },
      };
    },
    clearAccount: (email) => accounts.clear(email),
    takeSignup: (email, ip) =>
      takeAll([
        [signupIp, ip],
        [signupEmail, email],
      ]),
    takeReset: (email, ip) =>
      takeAll([
        [resetIp, ip],
        [resetEmail, email],
      ]),
  };
}
