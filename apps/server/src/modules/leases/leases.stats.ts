import {
  AUTO_REFUND_WINDOW_MS,
  REFUND_MAX_SPEED_BPS,
  REFUND_MAX_TRAFFIC_BYTES,
  REFUND_WINDOW_MS,
  RENEW_WINDOW_MS,
  STATIC_REFUND_WINDOW_MS,
  type TLeaseStats,
} from '@pm/contracts';

/** The lease columns the stats are computed from. */
export interface LeaseStatsInput {
  start: Date;
  endedAt: Date | null;
  static: boolean;
  reqs: number;
  fails: number;
  inBytes: number;
  outBytes: number;
}

/** The agent columns the refund rule reads. */
export interface AgentStatsInput {
  online: boolean;
  speedBps: number | null;
}

/** Static proxies are refundable within 1 hour, only if unused (rules §9); the FAQ reads the same constant. */
export { STATIC_REFUND_WINDOW_MS };

/** fails / reqs * 100, rounded to 2 decimals; 0 without requests. */
export function computeFailPct(reqs: number, fails: number): number {
  if (reqs <= 0) return 0;
  return Math.round((Math.min(fails, reqs) / reqs) * 10000) / 100;
}

/**
 * Whether the customer may refund (rules §9): a leased proxy within the first 4 hours, if the agent is
 * offline, traffic under 100 MB and speed under 500 kbps (an agent never speed-tested counts as 0);
 * a static proxy within 1 hour, only if unused. Never after the lease ended.
 */
export function isRefundable(lease: LeaseStatsInput, agent: AgentStatsInput, nowMs: number): boolean {
  if (lease.endedAt) return false;
  const ageMs = nowMs - lease.start.getTime();
  if (lease.static) return ageMs < STATIC_REFUND_WINDOW_MS && lease.reqs === 0;
  return (
    ageMs < REFUND_WINDOW_MS &&
    !agent.online &&
    lease.inBytes + lease.outBytes < REFUND_MAX_TRAFFIC_BYTES &&
    (agent.speedBps ?? 0) < REFUND_MAX_SPEED_BPS
  );
}

/** Lease `stats` for the API (rules §3). */
export function computeLeaseStats(
  /** `authFails`: connections refused for a wrong user name or password, shown apart, never in `failPct`. */
  lease: LeaseStatsInput & { authFails: number },
  agent: AgentStatsInput,
  nowMs: number,
): TLeaseStats {
  return {
    reqs: lease.reqs,
    failPct: computeFailPct(lease.reqs, lease.fails),
    authFails: lease.authFails,
    inBytes: lease.inBytes,
    outBytes: lease.outBytes,
    refundable: isRefundable(lease, agent, nowMs),
  };
}

export { AUTO_REFUND_MIN_REQUESTS } from '@pm/contracts';

const HOUR_MS = 60 * 60 * 1000;

/**
 * The auto-refund's last hour over the hourly traffic rows (UTC hours): the current hour's row
 * counts whole, the previous hour's by the share of it still inside the window (at 15:20 two thirds
 * of the 14:00 row), older rows not at all. A sliding-window estimate: the rows hold no finer time.
 */
export function autoRefundWindow(nowMs: number): {
  hourStart: Date;
  previousHour: Date;
  previousWeight: number;
} {
  const hourStartMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  return {
    hourStart: new Date(hourStartMs),
    previousHour: new Date(hourStartMs - HOUR_MS),
    previousWeight: Math.max(0, 1 - (nowMs - hourStartMs) / AUTO_REFUND_WINDOW_MS),
  };
}

/** Whether the lease may be renewed now: not ended, not past its end, and in its last 5 hours (rules §4). */
export function isRenewable(lease: { until: Date; endedAt: Date | null }, nowMs: number): boolean {
  const leftMs = lease.until.getTime() - nowMs;
  return lease.endedAt === null && leftMs > 0 && leftMs <= RENEW_WINDOW_MS;
}
