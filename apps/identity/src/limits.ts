import { createMemoryRateCounter, type PaceSchedule, type RateCounter } from '@pm/db';

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
  | 'resetPerEmail'
  | 'verifyMailPerUser';

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
  /** Confirmation links a signed-in user asks to be sent again (the app's banner). */
  verifyMailPerUser: { points: 3, duration: 60 * 60 },
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
  /**
   * The same for a two-factor code after a right password: the same limits per (account, IP) and
   * per IP (a wrong code is a failed sign-in), and the same slow-down, counted per account apart
   * from its passwords, so six million codes cannot be walked at 10 an hour either.
   */
  beginCode(userId: string, ip: string, opts?: { knownIp?: boolean }): Promise<LoginAdmission>;
  /** After a password reset through the mailed link: the account's slow-down starts over. */
  clearAccount(email: string): Promise<void>;
  /** Counts one sign-up attempt; false when over the limit. */
  takeSignup(email: string, ip: string): Promise<boolean>;
  /** Counts one reset-mail request; false when over the limit. */
  takeReset(email: string, ip: string): Promise<boolean>;
  /** Counts one resent confirmation link of a user; false when over the limit. */
  takeVerifyMail(userId: string): Promise<boolean>;
}

export interface LimitOverrides extends Partial<Record<LimitName, LimitSpec>> {
  account?: Partial<AccountSlowdown>;
}

const KEY_PREFIX = 'id';

/**
 * The limits over shared counters (`rate_limits`, see `@pm/db` createPgRateCounter in the
 * app; an in-memory counter in unit tests): every identity process counts the same budget.
 * A refused hit still counts, as before; a success gives the IP's point back.
 */
export function createLimits(
  overrides: LimitOverrides = {},
  now: () => number = Date.now,
  counter: RateCounter = createMemoryRateCounter(now),
): Limits {
  const { account: accountOverrides, ...limitOverrides } = overrides;
  const l = { ...LIMITS, ...limitOverrides };
  const a = { ...ACCOUNT_SLOWDOWN, ...accountOverrides };
  const pace: PaceSchedule = {
    freeFailures: a.freeFailures,
    baseDelayMs: a.baseDelayS * 1000,
    maxDelayMs: a.maxDelayS * 1000,
    forgetAfterMs: a.forgetAfterS * 1000,
  };
  const key = (name: LimitName | 'account', caller: string) => `${KEY_PREFIX}:${name}:${caller}`;
  /** Takes one point: null when within the limit, else the seconds to wait (at least 1). */
  const take = async (name: LimitName, caller: string): Promise<number | null> => {
    const spec = l[name];
    const { hits, resetAtMs } = await counter.hit(key(name, caller), spec.duration * 1000);
    return hits <= spec.points ? null : Math.max(1, Math.ceil((resetAtMs - now()) / 1000));
  };
  /** Takes one point of each; false as soon as one is out of points (all are counted). */
  const takeAll = async (pairs: [LimitName, string][]): Promise<boolean> => {
    let ok = true;
    for (const [name, caller] of pairs) if ((await take(name, caller)) !== null) ok = false;
    return ok;
  };
  const pair = (email: string, ip: string) => `${email}|${ip}`;

  /** Takes an attempt's points for `subject` (an email, or `otp:<user id>`) before it is checked. */
  async function begin(subject: string, ip: string, opts: { knownIp?: boolean }): Promise<LoginAdmission> {
    // Each take is one atomic upsert, so of N parallel attempts (on any process) only the allowed number pass.
    const ipWait = await take('failsPerIpDay', ip);
    if (ipWait !== null) return { ok: false, retryAfterS: ipWait };
    const pairWait = await take('failsPerEmailIp', pair(subject, ip));
    if (pairWait !== null) {
      await counter.giveBack(key('failsPerIpDay', ip));
      return { ok: false, retryAfterS: pairWait };
    }
    if (!opts.knownIp) {
      const admitted = await counter.pace(key('account', subject), pace);
      if (!admitted.ok) {
        await Promise.all([
          counter.giveBack(key('failsPerIpDay', ip)),
          counter.giveBack(key('failsPerEmailIp', pair(subject, ip))),
        ]);
        return { ok: false, retryAfterS: Math.max(1, Math.ceil(admitted.retryAfterMs / 1000)) };
      }
    }
    let reported = false;
    return {
      ok: true,
      ticket: {
        async succeeded() {
          if (reported) return;
          reported = true;
          await Promise.all([
            counter.clear(key('account', subject)),
            counter.giveBack(key('failsPerIpDay', ip)),
            counter.clear(key('failsPerEmailIp', pair(subject, ip))),
          ]);
        },
        async failed() {
          reported = true;
        },
      },
    };
  }

  return {
    beginLogin: (email, ip, opts = {}) => begin(email, ip, opts),
    beginCode: (userId, ip, opts = {}) => begin(`otp:${userId}`, ip, opts),
    clearAccount: (email) => counter.clear(key('account', email)),
    takeSignup: (email, ip) =>
      takeAll([
        ['signupPerIp', ip],
        ['signupPerEmail', email],
      ]),
    takeReset: (email, ip) =>
      takeAll([
        ['resetPerIp', ip],
        ['resetPerEmail', email],
      ]),
    takeVerifyMail: (userId) => takeAll([['verifyMailPerUser', userId]]),
  };
}
