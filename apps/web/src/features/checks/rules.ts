/** What the checks' panels show (rules §2, 4, 8): pure, so Node tests it. */
import type { TSpeedCheck } from '@pm/contracts';
import { formatTime, type TimeFormatOptions } from '../../lib/format/time.ts';

/** Rules §8: score check toasts, shown 3 s. */
export const SCORE_TOAST_MS = 3000;
export const SCORE_TOASTS = {
  ok: 'IP Score information updated',
  insufficientFunds: 'Insufficient balance, add funds and try again',
  rateLimited: 'You are making too many requests, try again later',
  other: 'An error happened, try again later',
} as const;

/** Rules §4's result codes of a score check call, from an answer's status (null: no answer). */
export type ScoreCheckResult =
  | 'SCORECHECK_OK'
  | 'SCORECHECK_INSUFFICENT_FUNDS'
  | 'SCORECHECK_RATE_LIMITED'
  | 'SCORECHECK_OTHER';

export function scoreCheckResultOf(status: number | null): ScoreCheckResult {
  if (status === 402) return 'SCORECHECK_INSUFFICENT_FUNDS';
  if (status === 429) return 'SCORECHECK_RATE_LIMITED';
  return 'SCORECHECK_OTHER';
}

/** The toast of a score check result, and whether it is an error. */
export function scoreToastOf(result: ScoreCheckResult): { message: string; severity: 'success' | 'error' } {
  switch (result) {
    case 'SCORECHECK_OK':
      return { message: SCORE_TOASTS.ok, severity: 'success' };
    case 'SCORECHECK_INSUFFICENT_FUNDS':
      return { message: SCORE_TOASTS.insufficientFunds, severity: 'error' };
    case 'SCORECHECK_RATE_LIMITED':
      return { message: SCORE_TOASTS.rateLimited, severity: 'error' };
    default:
      return { message: SCORE_TOASTS.other, severity: 'error' };
  }
}

export const SPEED_FAILED_TEXT = 'Speed could not be tested';

/**
 * The speed panel's state (rules §4 "Speed check UI"): loading the existing result, not found (Test
 * Now), checking, failed (a failed or rejected test, or a speed of 0: retest after 6 minutes), or
 * success. `canRetest` says whether Test Now is offered now.
 */
export type SpeedView =
  | { kind: 'loadingExisting' }
  | { kind: 'notFound'; canRetest: true }
  | { kind: 'checking' }
  | { kind: 'failed'; retestAt: string; canRetest: boolean }
  | { kind: 'success'; bps: number; checkTime: string; retestAt: string; canRetest: boolean };

export function speedViewOf(
  check: TSpeedCheck | null | undefined,
  nowMs: number,
  rejectedUntil?: string | null,
): SpeedView {
  if (check === undefined) return { kind: 'loadingExisting' };
  if (check === null) return { kind: 'notFound', canRetest: true };
  if (check.status === 'requested' || check.status === 'checking') return { kind: 'checking' };
  const retestAt = rejectedUntil && rejectedUntil > check.retestAt ? rejectedUntil : check.retestAt;
  const canRetest = nowMs >= Date.parse(retestAt);
  if (check.status === 'failed' || !check.bps) return { kind: 'failed', retestAt, canRetest };
  return {
    kind: 'success',
    bps: check.bps,
    checkTime: check.checkTime ?? check.requestedAt,
    retestAt,
    canRetest,
  };
}

/** "Retest available at 14:05" (or "2:05 PM"): the browser's time of day, like every other time shown. */
export function retestText(retestAt: string, o?: TimeFormatOptions): string {
  return `Retest available at ${formatTime(retestAt, o)}`;
}
