/**
 * What one confirmed output of a charge is worth to the balance, and when the watcher polls a
 * charge next. Pure functions (no I/O), so the rules read and test on their own.
 */
import { MAX_DEPOSIT_C } from '@pm/contracts';
import { type Cents, cents, MAX_CENTS } from '@pm/money';
import { creditCents } from './payments.amounts.ts';

/** The charge's cap: `multiple` times its amount, never past MAX_DEPOSIT_C. */
export function chargeCapC(amountUsdC: number, multiple: number): Cents {
  return cents(Math.min(amountUsdC * multiple, MAX_DEPOSIT_C));
}

/** Why money was held rather than credited. */
export type HeldReason = 'overCap' | 'outputOverCap';

/** The pricing of one output. */
export interface OutputPricing {
  /** Cents to credit now (after the small-payment fee). */
  creditC: Cents;
  /** Cents parked as a held credit for staff (0: none), the base units they stand for, and why. */
  heldC: Cents;
  heldBase: bigint;
  heldReason: HeldReason | undefined;
  /** The rate of the part within the amount due, and of the part above it. */
  rateC: Cents;
  overRateC: Cents;
  /** The small-payment fee taken. */
  feeC: Cents;
}

/**
 * Prices one output. The part of it within what is still due is worth the locked rate (the
 * lower of locked and current when the payment is late); the part above the amount due is always
 * worth the lower of the two, so overpaying cannot buy coins at an old price. The charge credits
 * at most `capC` in all; the rest is held. An output worth more than the cap on its own (at the
 * locked rate) is absurd for this charge and held whole. 'needsRate' when a current rate is
 * needed (late, or above the amount due) and none is to be had.
 */
export function priceOutput(i: {
  valueBase: bigint;
  decimals: number;
  dueBase: bigint;
  /** Base units of the charge's payments credited before this one. */
  receivedBefore: bigint;
  /** Cents credited by those payments. */
  creditedBefore: Cents;
  lockedRateC: Cents;
  currentRateC: Cents | undefined;
  late: boolean;
  capC: Cents;
  /** A fee taken from a credit below `belowC` (USDT TRC-20 under $10), never below zero. */
  smallPaymentFee?: { belowC: number; feeC: number } | undefined;
}): OutputPricing | 'needsRate' {
  const left = i.dueBase > i.receivedBefore ? i.dueBase - i.receivedBefore : 0n;
  const inDue = i.valueBase < left ? i.valueBase : left;
  const over = i.valueBase - inDue;
  if ((i.late || over > 0n) && i.currentRateC === undefined) return 'needsRate';
  const lower = cents(Math.min(i.lockedRateC, i.currentRateC ?? i.lockedRateC));
  const rateC = i.late ? lower : i.lockedRateC;
  // One rounding (down) for both parts: with equal rates this is exactly the whole output's worth.
  const numerator = inDue * BigInt(rateC) + over * BigInt(lower);
  const gross = Number(
    numerator / 10n ** BigInt(i.decimals) > BigInt(MAX_CENTS)
      ? BigInt(MAX_CENTS)
      : numerator / 10n ** BigInt(i.decimals),
  );
  if (creditCents(i.valueBase, i.lockedRateC, i.decimals) > i.capC) {
    return {
      creditC: cents(0),
      heldC: cents(gross),
      heldBase: i.valueBase,
      heldReason: 'outputOverCap',
      rateC,
      overRateC: lower,
      feeC: cents(0),
    };
  }
  const room = Math.max(0, i.capC - i.creditedBefore);
  const within = Math.min(gross, room);
  const heldC = gross - within;
  // The held base units in proportion to the held cents (at least one when anything is held).
  let heldBase = heldC > 0 && gross > 0 ? (i.valueBase * BigInt(heldC)) / BigInt(gross) : 0n;
  if (heldC > 0 && heldBase === 0n) heldBase = 1n;
  const fee = i.smallPaymentFee && within < i.smallPaymentFee.belowC ? i.smallPaymentFee.feeC : 0;
  const creditC = Math.max(0, within - fee);
  return {
    creditC: cents(creditC),
    heldC: cents(heldC),
    heldBase,
    heldReason: heldC > 0 ? 'overCap' : undefined,
    rateC,
    overRateC: lower,
    feeC: cents(within - creditC),
  };
}

/**
 * A payment is late when it was made after the charge expired, or confirmed more than
 * `allowanceMs` after it: a payment seen before expiry cannot wait unconfirmed for a better rate.
 */
export function isLate(p: {
  paidAt: Date;
  confirmedAt: Date;
  expiresAt: Date;
  allowanceMs: number;
}): boolean {
  return p.paidAt > p.expiresAt || p.confirmedAt.getTime() > p.expiresAt.getTime() + p.allowanceMs;
}

const MIN = 60_000;
/** While a payment waits for confirmations. */
export const PENDING_POLL_MS = MIN;
/**
 * How the pause grows with a charge's age before expiry, per chain: TRON (40-minute charges,
 * credited within a minute) looks at half the age, at most every 30 minutes; Bitcoin and Litecoin
 * (6-hour charges, credited only after a block or more) at the age, at most every hour.
 */
export const OPEN_POLL = {
  fast: { ageFactor: 0.5, maxMs: 30 * MIN },
  slow: { ageFactor: 1, maxMs: 60 * MIN },
} as const;
/** First pause in the grace window; each later one is twice the time since expiry. */
export const GRACE_POLL_MIN_MS = 60 * MIN;

/**
 * When to poll a charge next: every `intervalMs` in its first minutes and while a payment waits
 * for confirmations; then a pause growing with its age (`pace`, see OPEN_POLL) until it expires,
 * as most customers pay within minutes; in the grace window after expiry rarely (an hour, then
 * twice the time since expiry: +1 h, +3 h, +9 h, …). Never after `watchUntil`, the hard end.
 * The figures are for the default 30-second cycle; another `intervalMs` scales them.
 */
export function nextCheckAt(c: {
  now: Date;
  createdAt: Date;
  expiresAt: Date;
  watchUntil: Date;
  hasPending: boolean;
  intervalMs: number;
  pace?: (typeof OPEN_POLL)[keyof typeof OPEN_POLL];
}): Date {
  const pace = c.pace ?? OPEN_POLL.fast;
  const now = c.now.getTime();
  // The schedule is written for the default 30 s cycle and scales with it (the devnet runs 2 s).
  const scale = c.intervalMs / 30_000;
  let delay: number;
  if (c.hasPending) delay = scale * PENDING_POLL_MS;
  else if (now < c.expiresAt.getTime()) {
    delay = Math.min(
      Math.max((now - c.createdAt.getTime()) * pace.ageFactor, c.intervalMs),
      scale * pace.maxMs,
    );
    // The last look before expiry: exactly at it, so an on-time payment is seen on time.
    if (now + delay > c.expiresAt.getTime()) delay = Math.max(c.expiresAt.getTime() - now, 1000);
  } else delay = scale * Math.max(GRACE_POLL_MIN_MS, 2 * (now - c.expiresAt.getTime()));
  return new Date(Math.min(now + Math.round(delay), Math.max(c.watchUntil.getTime() - 1000, now + 1000)));
}
