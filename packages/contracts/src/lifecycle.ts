import { z } from 'zod';
import { ZConn, ZCountryCode, ZLoc } from './agents.ts';
import { ZCents, ZErrorBody, ZQueryDate, zQueryInt } from './common.ts';
import { LEASE_DURATION_MS, ZLease } from './leases.ts';

// Lease lifecycle contracts (issue 19): renew, refund, history, static proxies, hourly traffic.

/** A renewal extends the lease by 24 hours from its current end (rules §9). */
export const RENEW_EXTENSION_MS = LEASE_DURATION_MS;
/** Renewal price: floor(purchase price / hours leased x 24) (rules §9). */
export function renewalPriceC(purchasePriceC: number, hoursLeased: number): number {
  return hoursLeased > 0 ? Math.floor((purchasePriceC / hoursLeased) * 24) : 0;
}

/** Results of `PATCH /leases/{id}`; the screen maps RENEWED to SUCCESS, NOT_ENOUGH_FUNDS to its dialog, anything else to FAILED. */
export const RENEW_STATUSES = [
  'RENEW_STATUS_RENEWED',
  'RENEW_STATUS_NOT_ENOUGH_FUNDS',
  'RENEW_STATUS_NOT_RENEWABLE',
] as const;
export type RenewStatus = (typeof RENEW_STATUSES)[number];

/** `PATCH /leases/{id}` 200: the renewed lease, the price charged and the balance after. */
export const ZRenewResult = z.object({
  status: z.literal('RENEW_STATUS_RENEWED'),
  priceC: ZCents,
  balanceC: ZCents,
  lease: ZLease,
});
export type TRenewResult = z.infer<typeof ZRenewResult>;

/** Error body of `PATCH /leases/{id}`: 402 `status` NOT_ENOUGH_FUNDS (errorCode notEnoughFunds), 409 NOT_RENEWABLE (errorCode notRenewable). */
export const ZRenewErrorBody = ZErrorBody.extend({ status: z.enum(RENEW_STATUSES).optional() });
export type TRenewErrorBody = z.infer<typeof ZRenewErrorBody>;

/** Results of a refund; rules §4 "Refund result". */
export const REFUND_STATUSES = [
  'REFUND_STATUS_REFUNDED',
  'REFUND_STATUS_ALIVE',
  'REFUND_STATUS_INELIGIBLE',
] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** `DELETE /leases/{id}` and the staff refund, 200: the amount credited back and the balance after. */
export const ZRefundResult = z.object({
  status: z.literal('REFUND_STATUS_REFUNDED'),
  leaseID: z.string(),
  refundAmountC: ZCents,
  balanceC: ZCents,
});
export type TRefundResult = z.infer<typeof ZRefundResult>;

/** Error body of a refused refund: `errorCode` one of REFUND_ERROR_CODES and the matching `status`. */
export const ZRefundErrorBody = ZErrorBody.extend({ status: z.enum(REFUND_STATUSES).optional() });
export type TRefundErrorBody = z.infer<typeof ZRefundErrorBody>;

/** Why a lease ended; null while it runs. */
export const LEASE_END_REASONS = [
  /** Reached its end time (auto-renew off). */
  'expired',
  /** Auto-renew was on but the balance did not cover the renewal. */
  'autoRenewNoFunds',
  /** Refunded on the customer's request. */
  'refunded',
  /** Refunded by the 40%-failed rule. */
  'autoRefunded',
  /** A static lease refunded by staff. */
  'staffRefunded',
  /** Ended by staff without refund. */
  'staffEnded',
] as const;
export const ZLeaseEndReason = z.enum(LEASE_END_REASONS);
export type LeaseEndReason = (typeof LEASE_END_REASONS)[number];

/** History page sizes (rules §9); the first is the default. History dates go back 60 days (rules §5). */
export const HISTORY_PAGE_SIZES = [10, 20] as const;
export const HISTORY_MAX_DAYS = 60;
export const MAX_HISTORY_QUERY_LENGTH = 100;

/**
 * `GET /leaseHistory`: the caller's leases that overlap [start, end) (end exclusive: the client sends
 * its last date plus one day), newest first; `query` matches a substring of the IP or of the note.
 */
export const ZLeaseHistoryQuery = z
  .object({
    offset: zQueryInt(0, 1_000_000).default(0),
    limit: z.coerce
      .number()
      .int()
      .refine((n) => (HISTORY_PAGE_SIZES as readonly number[]).includes(n), { message: 'must be 10 or 20' })
      .default(10),
    start: ZQueryDate.optional(),
    end: ZQueryDate.optional(),
    query: z.string().max(MAX_HISTORY_QUERY_LENGTH).optional(),
  })
  .strict();
export type TLeaseHistoryQuery = z.input<typeof ZLeaseHistoryQuery>;

/** A lease history item (rules §3), plus how and why it ended. `paidUntil` is the (possibly renewed) end. */
export const ZLeaseHistoryItem = z.object({
  leaseID: z.string(),
  agentID: z.string(),
  ip: z.string(),
  socksUser: z.string(),
  start: z.string(),
  paidUntil: z.string(),
  loc: ZLoc,
  note: z.string(),
  /** The last amount paid for it: the renewal price when renewed, else the purchase price. */
  lastPaymentC: ZCents,
  purchasePriceC: ZCents,
  exc: z.boolean(),
  static: z.boolean(),
  /** Null while the lease runs. */
  endedAt: z.string().nullable(),
  endReason: ZLeaseEndReason.nullable(),
  refunded: z.boolean(),
  refundAmountC: ZCents.nullable(),
});
export type TLeaseHistoryItem = z.infer<typeof ZLeaseHistoryItem>;

export const ZLeaseHistoryResponse = z.object({ items: z.array(ZLeaseHistoryItem), total: z.number().int() });
export type TLeaseHistoryResponse = z.infer<typeof ZLeaseHistoryResponse>;

/** Static shop quick countries (rules §2) and page sizes (rules §9, first is the default). */
export const STATIC_CHIP_COUNTRIES = ['US', 'CA', 'GB', 'AU', 'DE', 'FR'] as const;
export const STATIC_PAGE_SIZES = [10, 20, 50] as const;

/** `GET /static/list/`: static agents of a country, `limit` from offset `cursor`; `ip` is a prefix, `isp`/`city` substrings (case-insensitive). */
export const ZStaticListQuery = z
  .object({
    cc: ZCountryCode.default('US'),
    cursor: zQueryInt(0, 1_000_000).default(0),
    limit: z.coerce
      .number()
      .int()
      .refine((n) => (STATIC_PAGE_SIZES as readonly number[]).includes(n), {
        message: 'must be 10, 20 or 50',
      })
      .default(10),
    conn: ZConn.optional(),
    isp: z.string().max(100).optional(),
    city: z.string().max(100).optional(),
    ip: z.string().max(45).optional(),
  })
  .strict();
export type TStaticListQuery = z.input<typeof ZStaticListQuery>;

/** A static agent (rules §3): `priceC` is the 24-hour private price. */
export const ZStaticAgent = z.object({
  id: z.string(),
  ip: z.string(),
  loc: z.object({ city: z.string(), isp: z.string() }),
  conn: ZConn,
  priceC: ZCents,
});
export type TStaticAgent = z.infer<typeof ZStaticAgent>;

export const ZStaticListResponse = z.object({ list: z.array(ZStaticAgent), total: z.number().int() });
export type TStaticListResponse = z.infer<typeof ZStaticListResponse>;

/** `POST /static/lease` (rules §7): agent id as a string and the price the shop showed. 201 gives the lease. */
export const ZStaticLeaseBody = z
  .object({ agentID: z.string().min(1).max(64), expPriceC: ZCents.nonnegative() })
  .strict();
export type TStaticLeaseBody = z.input<typeof ZStaticLeaseBody>;

/** Error body of `POST /static/lease`: with `priceC` (the current price) on priceChanged. */
export const ZStaticLeaseErrorBody = ZErrorBody.extend({ priceC: ZCents.optional() });

/** One hour of a lease's traffic as the gateway metered it; `hour` is the hour's start (ISO, UTC). */
export const ZLeaseTrafficHour = z.object({
  hour: z.string(),
  reqs: z.number().int(),
  fails: z.number().int(),
  /** Connections refused for a wrong user name or password that hour (not in `fails`). */
  authFails: z.number().int(),
  inBytes: z.number().int(),
  outBytes: z.number().int(),
});
export type TLeaseTrafficHour = z.infer<typeof ZLeaseTrafficHour>;

/** `GET /leases/{id}/traffic`: hourly rows, oldest first (hours without traffic are absent). CSV: `GET /leases/{id}/traffic.csv`. */
export const ZLeaseTrafficResponse = z.object({ leaseID: z.string(), hours: z.array(ZLeaseTrafficHour) });
export type TLeaseTrafficResponse = z.infer<typeof ZLeaseTrafficResponse>;
/** Header line of the CSV download. */
export const LEASE_TRAFFIC_CSV_HEADER = 'hour,requests,failed,bytes_in,bytes_out';
