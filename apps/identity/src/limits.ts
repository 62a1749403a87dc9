import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';

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

export interface Limits {
  /** False when sign-in attempts for this (email, IP) or this IP are exhausted. */
  canTryLogin(email: string, ip: string): Promise<boolean>;
  loginFailed(email: string, ip: string): Promise<void>;
  loginSucceeded(email: string, ip: string): Promise<void>;
  /** Counts one sign-up attempt; false when over the limit. */
  takeSignup(email: string, ip: string): Promise<boolean>;
  /** Counts one reset-mail request; false when over the limit. */
  takeReset(email: string, ip: string): Promise<boolean>;
}

function exhausted(res: RateLimiterRes | null, points: number): boolean {
  return res !== null && res.consumedPoints >= points;
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

/** In-memory limiters (per process); a multi-replica deployment would swap in RateLimiterPostgres. */
export function createLimits(overrides: Partial<Record<LimitName, LimitSpec>> = {}): Limits {
  const l = { ...LIMITS, ...overrides };
  const failsEmailIp = new RateLimiterMemory({ keyPrefix: 'fei', ...l.failsPerEmailIp });
  const failsIp = new RateLimiterMemory({ keyPrefix: 'fip', ...l.failsPerIpDay });
  const signupIp = new RateLimiterMemory({ keyPrefix: 'sip', ...l.signupPerIp });
  const signupEmail = new RateLimiterMemory({ keyPrefix: 'sem', ...l.signupPerEmail });
  const resetIp = new RateLimiterMemory({ keyPrefix: 'rip', ...l.resetPerIp });
  const resetEmail = new RateLimiterMemory({ keyPrefix: 'rem', ...l.resetPerEmail });
  const pair = (email: string, ip: string) => `${email}|${ip}`;

  return {
    async canTryLogin(email, ip) {
      const [a, b] = await Promise.all([failsEmailIp.get(pair(email, ip)), failsIp.get(ip)]);
      return !exhausted(a, l.failsPerEmailIp.points) && !exhausted(b, l.failsPerIpDay.points);
    },
    async loginFailed(email, ip) {
      await takeAll([
        [failsEmailIp, pair(email, ip)],
        [failsIp, ip],
      ]);
    },
    async loginSucceeded(email, ip) {
      await failsEmailIp.delete(pair(email, ip));
    },
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
