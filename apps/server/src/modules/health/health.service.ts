import { type DbHandle, sweepRateLimits } from '@pm/db';

const READY_TIMEOUT_MS = 2000;

/** What the health service is built from. */
export interface HealthServiceDeps {
  db: Pick<DbHandle, 'query'>;
  /** Clock (the platform's). */
  now?: () => number;
  /** How long the database may take to answer; default 2000 ms. */
  readyTimeoutMs?: number;
}

/** The health service's functions (derived from the factory). */
export type HealthService = ReturnType<typeof createHealthService>;

/** Readiness: whether the database answers in time. */
export function createHealthService(deps: HealthServiceDeps) {
  const timeoutMs = deps.readyTimeoutMs ?? READY_TIMEOUT_MS;
  return {
    /** Resolves when `SELECT 1` answers within the timeout; rejects with the reason otherwise. */
    async checkReady(): Promise<void> {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`database did not answer in ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([deps.db.query('SELECT 1'), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    /** Deletes the shared rate-limit rows (API and identity) whose window has ended; returns how many. */
    sweepRateLimits: (): Promise<number> => sweepRateLimits(deps.db, (deps.now ?? Date.now)()),
  };
}
