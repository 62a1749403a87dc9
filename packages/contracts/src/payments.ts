/**
 * Crypto top-ups (rules §2 Add funds, 3 Crypto charge / Crypto transaction, 7 Payment calls, 9) and
 * referral rewards. Amounts in US money are integer cents (`ZCents`); crypto amounts are decimal
 * strings in whole coins ("0.00051234"), exact to the coin's base unit (8 decimals for BTC and LTC,
 * 6 for USDT), never floats.
 */
import { type Cents, cents } from '@pm/money';
import { z } from 'zod';
import { ZCents, ZQueryDate, zQueryInt } from './common.ts';
import { minDepositC, ZCurrencyId } from './currencies.ts';

/** Largest single top-up: $100,000.00. */
export const MAX_DEPOSIT_C: Cents = cents(10_000_000);

/** How long a charge's address waits for a payment (rules §9): 6 hours, 40 minutes for USDT TRC20. */
export const CHARGE_LIFETIME_MS = { btc: 6 * 3600_000, ltc: 6 * 3600_000, trc20usdt: 40 * 60_000 } as const;

/** The charge page polls `POST /crypto/check` this often until the charge is paid (rules §9). */
export const CHARGE_POLL_MS = 30_000;

/** Referral rewards (rules §1, 9): percent of the referred customer's first load, and of every later one. */
export const REFERRAL_FIRST_LOAD_PCT = 10;
export const REFERRAL_LATER_LOAD_PCT = 5;

/**
 * A charge's state, as the charge page shows it:
 * - `new`: no payment seen yet ("no payments");
 * - `pending`: a payment is on its way (seen, waiting for confirmations);
 * - `partial`: confirmed and credited, but less than asked for; the address still takes more until expiry;
 * - `paid`: confirmed and credited, at least the amount asked for (`over` says more arrived);
 * - `expired`: nothing arrived in time. A payment that arrives later is still credited and turns it
 *   `partial` or `paid` with `late` set.
 */
export const CHARGE_STATUSES = ['new', 'pending', 'partial', 'paid', 'expired'] as const;
export const ZChargeStatus = z.enum(CHARGE_STATUSES);
export type ChargeStatus = z.infer<typeof ZChargeStatus>;

/** A crypto amount in whole coins, exact to the base unit: "0.00051234", "25". */
export const ZCryptoAmount = z.string().regex(/^\d{1,12}(\.\d{1,8})?$/);

/** The public code in the charge page's address (`/charges/{code}`). */
export const ZChargeCode = z.string().regex(/^[A-Z0-9]{12}$/, { message: 'must be a charge code' });
/** A charge's id (`uid`), a UUID. */
export const ZChargeUid = z.uuid({ message: 'must be a charge uid' });
/** A transaction id: 64 hex digits (Bitcoin, Litecoin and TRON alike). */
export const ZTxid = z.string().regex(/^[0-9a-fA-F]{64}$/, { message: 'must be 64 hex digits' });

/**
 * `POST /crypto/create`. `amount` is integer **cents** (the add-funds form's "100 times the dollar
 * value"; send `parseDollars(text)` from @pm/money), at least the currency's minimum ($5 BTC/LTC,
 * $10 USDT TRC20) and at most MAX_DEPOSIT_C; a smaller amount is a 400 naming `amount`.
 * `user_id` and `user_email` are the spec's payload fields: optional, and `user_id` must be the
 * caller (403 otherwise); the charge always belongs to the signed-in user.
 */
export const ZCryptoCreateRequest = z
  .object({
    amount: ZCents,
    type: ZCurrencyId,
    user_id: z.string().min(1).max(200).optional(),
    user_email: z.string().max(320).optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    const min = minDepositC(b.type);
    if (b.amount < min) {
      ctx.addIssue({
        code: 'custom',
        path: ['amount'],
        message: `must be at least ${min} cents for ${b.type}`,
      });
    } else if (b.amount > MAX_DEPOSIT_C) {
      ctx.addIssue({ code: 'custom', path: ['amount'], message: `must be at most ${MAX_DEPOSIT_C} cents` });
    }
  });
export type TCryptoCreateRequest = z.infer<typeof ZCryptoCreateRequest>;

/**
 * The answer to `POST /crypto/create`: the charge (rules §3) and the code of its page, which the
 * web app opens in a new tab at `/charges/{newChargeCode}`. A user's still-open charge in the same
 * currency with nothing paid yet is answered again (same uid, address and code), re-priced.
 */
export const ZCryptoCreateResponse = z.object({
  uid: ZChargeUid,
  type: ZCurrencyId,
  /** The deposit address: `bc1…`, `ltc1…` or `T…`. */
  address: z.string(),
  /** Crypto amount to send, in whole coins. */
  amount: ZCryptoAmount,
  /** The dollar amount asked for, cents. */
  amountUSD: ZCents,
  newChargeCode: ZChargeCode,
  /** When the address stops waiting (ISO 8601). */
  expiresAt: z.string(),
});
export type TCryptoCreateResponse = z.infer<typeof ZCryptoCreateResponse>;

/** One on-chain payment to a charge's address (each output, or each TRC20 transfer). */
export const ZChargePayment = z.object({
  txid: z.string(),
  amountCrypto: ZCryptoAmount,
  /** True once it has the confirmations the currency needs (TRC20: solidified). */
  confirmed: z.boolean(),
  /** Cents credited for it (bonus excluded); null until credited. */
  creditedUsd: ZCents.nullable(),
  /** It arrived after the charge expired (credited at the lower of the locked and the current rate). */
  late: z.boolean(),
  /** First seen by the watcher, or its block time if that is earlier (ISO 8601). */
  time: z.string(),
});
export type TChargePayment = z.infer<typeof ZChargePayment>;

/**
 * The charge page's data (`GET /crypto/charges/{code}`; also `data` of `POST /crypto/check`).
 * Field names follow rules §3: `amountUsd` and `exchangeRate` in cents, `bonusType` in percent.
 */
export const ZChargePage = z.object({
  uid: ZChargeUid,
  code: ZChargeCode,
  status: ZChargeStatus,
  currency: ZCurrencyId,
  address: z.string(),
  /** What to send, whole coins. */
  amountCrypto: ZCryptoAmount,
  /** The dollar amount asked for, cents. */
  amountUsd: ZCents,
  /** Cents per whole coin, locked when the charge was created (or re-priced). */
  exchangeRate: ZCents,
  /** Bonus percent credited on top of every payment to this charge (0: none). */
  bonusType: z.number().int().min(0).max(100),
  /** When the charge was created (ISO 8601). */
  date: z.string(),
  expiresAt: z.string(),
  /** For the QR code: `bitcoin:…?amount=…`, `litecoin:…?amount=…`, or the bare TRON address. */
  paymentUri: z.string(),
  /** Confirmed and credited so far, whole coins. */
  receivedCrypto: ZCryptoAmount,
  /** Seen but not yet confirmed, whole coins. */
  pendingCrypto: ZCryptoAmount,
  /** Cents credited for the payments (bonus excluded). */
  creditedUsd: ZCents,
  /** Cents of bonus credited. */
  bonusUsd: ZCents,
  /** Some payment arrived after expiry. */
  late: z.boolean(),
  /** More than asked for arrived. */
  over: z.boolean(),
  confirmationsRequired: z.number().int(),
  payments: z.array(ZChargePayment),
});
export type TChargePage = z.infer<typeof ZChargePage>;

export const ZChargeCodeParams = z.object({ code: ZChargeCode });

/** `POST /crypto/check`: read-only; polled by the charge page every CHARGE_POLL_MS until `paid`. */
export const ZCryptoCheckRequest = z.object({ uid: ZChargeUid }).strict();
export const ZCryptoCheckResponse = z.object({ status: ZChargeStatus, data: ZChargePage });
export type TCryptoCheckResponse = z.infer<typeof ZCryptoCheckResponse>;

/** Where a crypto payment stands: seen (unconfirmed), credited, or gone from the chain before confirming. */
export const CRYPTO_TX_STATES = ['pending', 'credited', 'dropped'] as const;

/** A crypto transaction as staff see it (rules §3 "Crypto transaction (admin)"), one per output. */
export const ZCryptoTransaction = z.object({
  time_created: z.string(),
  time_confirmed: z.string().nullable(),
  type: ZCurrencyId,
  txid: z.string(),
  /** The charge (invoice) it paid. */
  uid: ZChargeUid,
  address: z.string(),
  amount: ZCryptoAmount,
  /** Cents credited (bonus excluded); null until credited. */
  amountUsd: ZCents.nullable(),
  state: z.enum(CRYPTO_TX_STATES),
  late: z.boolean(),
});
export type TCryptoTransaction = z.infer<typeof ZCryptoTransaction>;

/** `GET /crypto/transactions` (staff): one user's crypto transactions, newest first. */
export const ZCryptoTransactionsQuery = z
  .object({
    user_id: z.string().min(1).max(200),
    offset: zQueryInt(0, 1_000_000).default(0),
    limit: zQueryInt(1, 1000).default(100),
    start: ZQueryDate.optional(),
    end: ZQueryDate.optional(),
  })
  .strict();
export const ZCryptoTransactionsResponse = z.object({
  transactions: z.array(ZCryptoTransaction),
  total: z.number().int(),
});
export type TCryptoTransactionsResponse = z.infer<typeof ZCryptoTransactionsResponse>;

/**
 * `POST /crypto/deep-check/` (staff): rescans addresses from the first page of their history and
 * credits what the watcher missed, idempotently. Picks the charges by `uid`, `address`, `user_id`
 * or `user_email` (each narrows the others); `type` narrows by currency; `txid` limits crediting
 * to that transaction and, with `type` btc or ltc alone, finds the charge from the transaction's
 * outputs.
 */
export const ZDeepCheckRequest = z
  .object({
    user_id: z.string().min(1).max(200).optional(),
    uid: ZChargeUid.optional(),
    user_email: z.string().min(1).max(320).optional(),
    address: z.string().min(1).max(100).optional(),
    txid: ZTxid.optional(),
    type: ZCurrencyId.optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (!b.uid && !b.address && !b.user_id && !b.user_email && !b.txid) {
      ctx.addIssue({
        code: 'custom',
        path: ['uid'],
        message: 'give uid, address, user_id, user_email or txid',
      });
    } else if (
      b.txid &&
      !b.uid &&
      !b.address &&
      !b.user_id &&
      !b.user_email &&
      b.type !== 'btc' &&
      b.type !== 'ltc'
    ) {
      ctx.addIssue({ code: 'custom', path: ['type'], message: 'a txid alone needs type btc or ltc' });
    }
  });
export type TDeepCheckRequest = z.infer<typeof ZDeepCheckRequest>;

export const ZDeepCheckResponse = z.object({
  /** The charges rescanned. */
  charges: z.array(ZChargePage.extend({ userId: z.string() })),
  /** Payments this call credited (empty when nothing was missed). */
  credited: z.array(ZCryptoTransaction),
  /** Every payment of those charges after the rescan. */
  transactions: z.array(ZCryptoTransaction),
});
export type TDeepCheckResponse = z.infer<typeof ZDeepCheckResponse>;

/** `GET /referral`: the caller's invite link and what it has earned. */
export const ZReferralInfo = z.object({
  /** The account's referral code (every account has one). */
  refcode: z.string(),
  /** The invite link to copy: the sign-up page with `?ref=<refcode>`. */
  inviteUrl: z.string(),
  /** Accounts that signed up with this code. */
  invitedCount: z.number().int(),
  /** Cents earned from referral rewards so far. */
  rewardsC: ZCents,
  firstLoadPct: z.number().int(),
  laterLoadPct: z.number().int(),
});
export type TReferralInfo = z.infer<typeof ZReferralInfo>;

/** Where a held credit stands: waiting for staff, released to the balance, or returned. */
export const HELD_CREDIT_STATES = ['held', 'released', 'returned'] as const;

/**
 * Money that arrived on a charge but was not credited: the part past the charge's cap
 * (`overCap`), or one output worth more than the cap alone (`outputOverCap`).
 */
export const ZHeldCredit = z.object({
  id: z.number().int(),
  uid: ZChargeUid,
  userId: z.string(),
  type: ZCurrencyId,
  txid: z.string(),
  address: z.string(),
  /** Whole coins held. */
  amount: ZCryptoAmount,
  /** What a release credits (cents at the payment's rate). */
  amountUsd: ZCents,
  reason: z.enum(['overCap', 'outputOverCap']),
  state: z.enum(HELD_CREDIT_STATES),
  time: z.string(),
  decidedAt: z.string().nullable(),
  decidedBy: z.string().nullable(),
  note: z.string().nullable(),
});
export type THeldCredit = z.infer<typeof ZHeldCredit>;

/** `GET /crypto/held` (staff): held credits, newest first; `state` filters (default: all). */
export const ZHeldCreditsQuery = z
  .object({
    state: z.enum(HELD_CREDIT_STATES).optional(),
    user_id: z.string().min(1).max(200).optional(),
    offset: zQueryInt(0, 1_000_000).default(0),
    limit: zQueryInt(1, 1000).default(100),
  })
  .strict();
export const ZHeldCreditsResponse = z.object({ items: z.array(ZHeldCredit), total: z.number().int() });
export type THeldCreditsResponse = z.infer<typeof ZHeldCreditsResponse>;

export const ZHeldCreditParams = z.object({ id: zQueryInt(1, Number.MAX_SAFE_INTEGER) });
/** `POST /crypto/held/{id}/release|return` (staff): why (kept with the row and in the audit trail). */
export const ZHeldCreditDecision = z.object({ note: z.string().trim().min(1).max(500) }).strict();

/** `GET /crypto/vanished` (staff): credited payments later gone from the chain (credit kept, for staff to settle). */
export const ZVanishedPayment = ZCryptoTransaction.extend({
  userId: z.string(),
  vanishedAt: z.string(),
});
export const ZVanishedPaymentsResponse = z.object({ items: z.array(ZVanishedPayment) });
export type TVanishedPaymentsResponse = z.infer<typeof ZVanishedPaymentsResponse>;
