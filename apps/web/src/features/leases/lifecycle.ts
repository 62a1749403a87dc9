/**
 * Renew and refund of a lease (rules §4 "Renew", "Refund result"; rules §8 "Renew", "Refund"): the answer
 * of `PATCH /leases/{id}` and `DELETE /leases/{id}` mapped to a result, and the texts the dialogs show.
 * Pure, so Node tests it.
 */
import {
  AUTO_REFUND_RULE_SHORT,
  ENDPOINTS,
  errorCodeOf,
  REFUND_MAX_TRAFFIC_BYTES,
  REFUND_WINDOW_MS,
  RENEW_WINDOW_MS,
  renewalPriceC,
  STATIC_REFUND_WINDOW_MS,
  type TLease,
  unhandledErrorCode,
} from '@pm/contracts';

export type RenewResult = 'RENEW_STATUS_RENEWED' | 'RENEW_STATUS_NOT_ENOUGH_FUNDS' | 'RENEW_STATUS_FAILED';

/** The renew flow: OFF, CONFIRM, PROGRESS, then SUCCESS, NOT_ENOUGH_FUNDS or FAILED. */
export type RenewStep = 'OFF' | 'CONFIRM' | 'PROGRESS' | 'SUCCESS' | 'NOT_ENOUGH_FUNDS' | 'FAILED';

/** A refused renewal (`status` null: no answer): 402 is not enough funds, anything else failed. */
export const renewResultOf = (status: number | null): RenewResult =>
  status === 402 ? 'RENEW_STATUS_NOT_ENOUGH_FUNDS' : 'RENEW_STATUS_FAILED';

/** A 2xx answer of `PATCH /leases/{id}`: RENEWED unless its `status` says otherwise. */
export function renewResultOfAnswer(body: unknown): RenewResult {
  const status =
    typeof body === 'object' && body !== null ? (body as { status?: unknown }).status : undefined;
  return status === undefined || status === 'RENEW_STATUS_RENEWED'
    ? 'RENEW_STATUS_RENEWED'
    : 'RENEW_STATUS_FAILED';
}

const RENEW_STEP: Record<RenewResult, RenewStep> = {
  RENEW_STATUS_RENEWED: 'SUCCESS',
  RENEW_STATUS_NOT_ENOUGH_FUNDS: 'NOT_ENOUGH_FUNDS',
  RENEW_STATUS_FAILED: 'FAILED',
};

/** The step a renew result leads to. */
export const renewStepOf = (result: RenewResult): RenewStep => RENEW_STEP[result];

export const RENEW_TEXTS = {
  SUCCESS: 'Renewed the proxy successfully',
  NOT_ENOUGH_FUNDS: 'Not enough funds on your balance',
  FAILED: 'Renewal failed, please contact support for help.',
} as const;

export type RefundResult =
  | 'REFUND_STATUS_REFUNDED'
  | 'REFUND_STATUS_ALIVE'
  | 'REFUND_STATUS_INELIGIBLE'
  | 'REFUND_STATUS_FAILED';

/**
 * A refused refund (rules §8): 409 with agentNotDead or notRefundable means the proxy is still alive;
 * 400 (leaseNotEligible or another reason) means ineligible; anything else (or no answer) failed.
 */
export function refundResultOf(status: number | null, body: unknown): RefundResult {
  if (status === 400) return 'REFUND_STATUS_INELIGIBLE';
  if (status !== 409) return 'REFUND_STATUS_FAILED';
  const code = errorCodeOf(ENDPOINTS.refundLease, body);
  switch (code) {
    case 'agentNotDead':
    case 'notRefundable':
      return 'REFUND_STATUS_ALIVE';
    case 'leaseNotEligible':
      return 'REFUND_STATUS_INELIGIBLE';
    // The balance at its ceiling: the refund could not be credited.
    case 'balanceLimit':
    case undefined:
      return 'REFUND_STATUS_FAILED';
    default:
      return unhandledErrorCode(code);
  }
}

export const REFUND_CANCELED_TITLE = 'Refund Canceled';

/** What the 'Refund Canceled' dialog says for each refusal. */
export const REFUND_CANCELED_TEXTS: Record<Exclude<RefundResult, 'REFUND_STATUS_REFUNDED'>, string> = {
  REFUND_STATUS_INELIGIBLE: 'Your lease is not eligible for a refund',
  REFUND_STATUS_ALIVE: 'The proxy is responsive and thus ineligible for an auto-refund',
  REFUND_STATUS_FAILED: 'There was an error processing the refund request',
};

/** Only the ineligible refusal sends the customer to support. */
export const refundOffersSupport = (result: RefundResult): boolean => result === 'REFUND_STATUS_INELIGIBLE';

export const REFUND_CONFIRM_TEXT =
  'The full amount you paid for this proxy is returned to your balance, and the proxy can no longer be used.';

export const REFUND_SUCCESS_TEXT = 'The proxy was refunded to your balance';

/** A static lease is refunded by staff (rules §1, 9): the dialog tells the customer what to send support. */
export const STATIC_REFUND_TEXT =
  'Static proxies are refunded by our support team within 1 hour of purchase if the proxy was not used. ' +
  'Send support the lease ID below:';

/** What a renewal costs (rules §9): the purchase price divided by the hours leased, times 24, rounded down. */
export function renewPriceC(lease: { purchasePriceC: number; start: string; until: string }): number {
  const hours = (Date.parse(lease.until) - Date.parse(lease.start)) / 3_600_000;
  return hours > 0 ? renewalPriceC(lease.purchasePriceC, hours) : lease.purchasePriceC;
}

/** "3h 20m", "45m", "1h". */
function spanLabel(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h > 0 ? `${h}h${m > 0 ? ` ${m}m` : ''}` : `${m}m`;
}

type LifecycleLease = Pick<TLease, 'start' | 'until' | 'renewable' | 'static' | 'stats'>;

/**
 * Why Renew is greyed (shown beside the button), or null when it is enabled: it opens in the last 5
 * hours of the lease (rules §9), so before that the customer learns when.
 */
export function renewHint(lease: LifecycleLease, nowMs: number): string | null {
  if (lease.renewable) return null;
  const leftMs = Date.parse(lease.until) - nowMs;
  if (!(leftMs > 0)) return 'The lease has ended';
  if (leftMs > RENEW_WINDOW_MS) {
    return `Renew opens in the last 5 hours of the lease (in ${spanLabel(leftMs - RENEW_WINDOW_MS)})`;
  }
  return 'Renew is not available for this lease';
}

/**
 * Why Refund is greyed, or what it does when enabled, by the server's rule (rules §9): a proxy in the
 * first 4 hours while it is offline, under 100 MB and slow; a static proxy within 1 hour if unused.
 */
export function refundHint(lease: LifecycleLease, nowMs: number): string {
  const ageMs = nowMs - Date.parse(lease.start);
  if (lease.static) {
    if (lease.stats.refundable) return 'Static proxies refund within 1 hour if unused: through support';
    if (lease.stats.reqs > 0) return 'Static proxies refund within 1 hour if unused: this one was used';
    if (ageMs >= STATIC_REFUND_WINDOW_MS)
      return 'Static proxies refund within 1 hour if unused: the hour has passed';
    return 'Static proxies refund within 1 hour if unused';
  }
  if (lease.stats.refundable) return 'Refund: the proxy is not working, so the full price comes back';
  if (ageMs >= REFUND_WINDOW_MS) return 'Refund: only in the first 4 hours of a lease';
  if (lease.stats.inBytes + lease.stats.outBytes >= REFUND_MAX_TRAFFIC_BYTES) {
    return 'Refund: over 100 MB went through the proxy';
  }
  return `Refund: the proxy is responsive. ${AUTO_REFUND_RULE_SHORT}`;
}
