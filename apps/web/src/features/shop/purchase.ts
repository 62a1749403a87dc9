/**
 * The lease purchase of rules §4 and its failure mapping of rules §8: states, the answer of a refused
 * `POST /leases` mapped to a state, and the dialog texts. Pure, so Node tests it.
 */
import {
  AUTO_REFUND_FAIL_PCT,
  AUTO_REFUND_RULE_SHORT,
  EMAIL_NOT_CONFIRMED_MESSAGE,
  ENDPOINTS,
  errorCodeOf,
  LEASE_CHANGE_LABELS,
  LEASE_CHANGES,
  type LeaseChange,
  STATIC_REFUND_WINDOW_MS,
  type TAgent,
  unhandledErrorCode,
} from '@pm/contracts';

/** What the customer is buying: the agent as the shop showed it, and private (`exc`) or shared. */
export interface PurchaseOrder {
  agent: TAgent;
  exc: boolean;
}

export type PurchaseFailure =
  | { step: 'NOT_ENOUGH_FUNDS' }
  | { step: 'PRICE_CHANGED' }
  | { step: 'TEST_FAILED' }
  | { step: 'INFO_CHANGED'; changes: LeaseChange[] }
  /** `heldLeaseId`: the buyer's own active lease on the proxy, when that is why (issue 36). */
  | { step: 'ALREADY_LEASED'; heldLeaseId?: string }
  | { step: 'AGENT_NOT_FOUND' }
  /** The address is not confirmed yet (403 `emailNotConfirmed`, issue 36 item 7). */
  | { step: 'EMAIL_NOT_CONFIRMED' }
  | { step: 'GENERIC_ERROR' };

export type PurchaseState =
  | { step: 'OFF' }
  | { step: 'CONFIRM'; order: PurchaseOrder }
  | { step: 'LEASING'; order: PurchaseOrder }
  | { step: 'SUCCESS' }
  | (PurchaseFailure & { order: PurchaseOrder });

export type PurchaseStep = PurchaseState['step'];

/**
 * Maps a refused purchase to its state (rules §8 "Lease purchase mapping"): 402 is not enough funds,
 * a 409's or 403's `errorCode` (one `POST /leases` declares) names the rest, anything else (or no
 * answer at all) is the generic failure.
 */
export function purchaseFailureOf(status: number | null, body: unknown): PurchaseFailure {
  if (status === 402) return { step: 'NOT_ENOUGH_FUNDS' };
  if (status !== 409 && status !== 403) return { step: 'GENERIC_ERROR' };
  const code = errorCodeOf(ENDPOINTS.createLease, body);
  switch (code) {
    case 'probeErrAgent':
      return { step: 'TEST_FAILED' };
    case 'priceChanged':
      return { step: 'PRICE_CHANGED' };
    case 'agentInfoChanged': {
      const sent = (body as { changes?: unknown }).changes;
      const changes = Array.isArray(sent) ? LEASE_CHANGES.filter((c) => sent.includes(c)) : [];
      return { step: 'INFO_CHANGED', changes };
    }
    case 'agentAlreadyLeased':
      return { step: 'ALREADY_LEASED' };
    case 'agentNotFound':
      return { step: 'AGENT_NOT_FOUND' };
    case 'notEnoughFunds':
      return { step: 'NOT_ENOUGH_FUNDS' };
    case 'emailNotConfirmed':
      return { step: 'EMAIL_NOT_CONFIRMED' };
    // A blocked account and a reused Idempotency-Key (the app sends none) have no dialog of their own.
    case 'accountBlocked':
    case 'idempotencyKeyReused':
    case undefined:
      return { step: 'GENERIC_ERROR' };
    default:
      return unhandledErrorCode(code);
  }
}

/** Failures after which the selected proxy and the list are reloaded: the proxy moved on (rules §4). */
export const reloadsProxies = (step: PurchaseStep): boolean =>
  step === 'PRICE_CHANGED' ||
  step === 'INFO_CHANGED' ||
  step === 'ALREADY_LEASED' ||
  step === 'AGENT_NOT_FOUND';

/** The success dialog closes itself after this long (rules §9). */
export const SUCCESS_DIALOG_MS = 1_000;

export interface FailureText {
  title: string;
  text: string;
}

/** Titles and texts of the failure dialogs (rules §8). */
export const FAILURE_TEXTS: Record<PurchaseFailure['step'], FailureText> = {
  TEST_FAILED: {
    title: 'The proxy is not responding',
    text: `Our test connection through this proxy did not get an answer. You can still buy it. ${AUTO_REFUND_RULE_SHORT}`,
  },
  PRICE_CHANGED: {
    title: 'Price Changed',
    text: 'The price of this proxy has changed. Check the new price and buy again.',
  },
  NOT_ENOUGH_FUNDS: {
    title: 'Not Enough Funds',
    text: 'Your balance does not cover the price of this proxy. Add funds and try again.',
  },
  GENERIC_ERROR: {
    title: 'Purchase Failed',
    text: 'The proxy could not be purchased. Please try again or contact support.',
  },
  INFO_CHANGED: {
    title: 'Proxy Parameters Changed',
    text: 'These parameters of the proxy changed since it was listed. Check the proxy and buy again:',
  },
  ALREADY_LEASED: {
    title: 'Already Purchased',
    text: 'This proxy is currently purchased and unavailable.',
  },
  AGENT_NOT_FOUND: {
    title: 'Proxy offline',
    text: 'This proxy is currently offline.',
  },
  EMAIL_NOT_CONFIRMED: {
    title: 'Confirm Your Email',
    text: EMAIL_NOT_CONFIRMED_MESSAGE,
  },
};

/** The dialog's names of the changed parameters, in the spec's order. */
export const changeLabels = (changes: readonly LeaseChange[]): string[] =>
  changes.map((c) => LEASE_CHANGE_LABELS[c]);

/**
 * Information shown before buying (rules §2, "Proxy detail and purchase"): the rules' words, then the rule
 * the server applies (what counts, the window and the minimum).
 */
export const AUTO_REFUND_NOTE = `Note: if ${AUTO_REFUND_FAIL_PCT}% or more of SOCKS requests through the purchased proxy fail, its price is refunded to the balance automatically. ${AUTO_REFUND_RULE_SHORT}`;

/** The same place in the static shop's confirm dialog: static proxies are never refunded automatically. */
export const STATIC_REFUND_NOTE = `${AUTO_REFUND_RULE_SHORT} A static proxy is refunded by support within ${STATIC_REFUND_WINDOW_MS / 3_600_000} hour of purchase, only if it was not used.`;
