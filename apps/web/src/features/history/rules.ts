/**
 * Lease history rules (rules §4 "Lists", 5, 9): the 60-day date window, the query `GET /leaseHistory`
 * takes, the 3-second search lockout and the end reasons in words. Pure, so Node tests it.
 */
import { HISTORY_MAX_DAYS, type LeaseEndReason, type TAgent, type TLeaseHistoryQuery } from '@pm/contracts';
import { canBuyPrivate, canBuyShared } from '../../lib/format/agent.ts';
import { type DateRange, type DayBounds, dayBounds, rangeQuery } from '../payments/dateRange.ts';

/** The history's first and last date pickers go back 60 days, and not past today. */
export const historyBounds = (today: string): DayBounds => dayBounds(today, HISTORY_MAX_DAYS);

/** The search button stays disabled this long after a click (rules §9). */
export const SEARCH_LOCKOUT_MS = 3_000;

/** True while a search clicked at `clickedAt` (null: never) still locks the button at `now`. */
export const isSearchLocked = (clickedAt: number | null, now: number): boolean =>
  clickedAt !== null && now - clickedAt < SEARCH_LOCKOUT_MS;

export interface HistoryView {
  range: DateRange;
  /** The search applied (IP or note), trimmed; '' for none. */
  search: string;
  page: number;
  rowsPerPage: number;
}

/** `GET /leaseHistory`'s query: offset and limit of the page, the range ending the day after the last date. */
export function historyQuery(
  view: HistoryView,
): TLeaseHistoryQuery & { offset: number; limit: number; start: string; end: string } {
  const { start, end } = rangeQuery(view.range);
  const search = view.search.trim();
  return {
    offset: view.page * view.rowsPerPage,
    limit: view.rowsPerPage,
    start,
    end,
    ...(search ? { query: search } : {}),
  };
}

const END_REASONS: Record<LeaseEndReason, string> = {
  expired: 'Expired',
  autoRenewNoFunds: 'Not renewed: not enough funds',
  refunded: 'Refunded',
  autoRefunded: 'Auto-refunded',
  staffRefunded: 'Refunded by support',
  staffEnded: 'Ended by support',
};

/** How a past lease ended, in words; 'Active' while it runs. */
export const endReasonLabel = (reason: LeaseEndReason | null): string =>
  reason === null ? 'Active' : END_REASONS[reason];

/** Buy Again is possible when the agent is online and can be leased private or shared now. */
export type BuyAgainCheck = { available: false } | { available: true; agent: TAgent; exc: boolean };

/**
 * Whether a history proxy can be bought again (`agent` null: `GET /agents/{id}` found none), and as
 * which type: the one leased before when it is still possible, else the other.
 */
export function buyAgainCheck(agent: TAgent | null, wasPrivate: boolean): BuyAgainCheck {
  if (!agent?.online) return { available: false };
  const canPrivate = canBuyPrivate(agent);
  const canShared = canBuyShared(agent);
  if (!canPrivate && !canShared) return { available: false };
  const exc = wasPrivate ? canPrivate : !canShared;
  return { available: true, agent, exc };
}

export const UNAVAILABLE_TEXT = 'This proxy is currently unavailable for purchase.';
export const NO_HISTORY_TEXT = 'No leases in the selected time period';
