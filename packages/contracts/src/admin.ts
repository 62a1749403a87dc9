import { z } from 'zod';
import { ZCents, zQueryInt } from './common.ts';

/** The `user` field of an admin lease: the owner's id behind this prefix (rules §3, Admin lease info). */
export const ADMIN_USER_URN_PREFIX = 'urn:user:';

/**
 * `GET /leases/{id}` and `GET /admin/leases` (staff): rules §3's admin lease info (id, user as a urn,
 * purchasePriceC, refundAmountC, refundTime, ended, static, until, exc, leases, autoRenew) plus what
 * the admin screen shows beside it (owner id, IP, start, end and its reason, traffic).
 */
export const ZAdminLease = z.object({
  id: z.string(),
  user: z.string(),
  userId: z.string(),
  agentId: z.string(),
  ip: z.string().nullable(),
  purchasePriceC: ZCents,
  refundAmountC: ZCents.nullable(),
  refundTime: z.string().nullable(),
  ended: z.boolean(),
  endedAt: z.string().nullable(),
  endReason: z.string().nullable(),
  static: z.boolean(),
  start: z.string(),
  until: z.string(),
  exc: z.boolean(),
  /** Leases running on the agent now (this one included while it runs). */
  leases: z.number().int(),
  autoRenew: z.boolean(),
  /** Bytes both ways over the lease's life. */
  trafficBytes: z.number().int(),
  /** True when staff may credit the purchase price now: ended and never refunded or credited. */
  creditable: z.boolean(),
});
export type TAdminLease = z.infer<typeof ZAdminLease>;

const ZIpv4 = z
  .string()
  .regex(/^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/, 'an IPv4 address');

/** `GET /admin/leases?uid=&ip=` (staff): a customer's leases, or the leases on one IP; one of them is required. */
export const ZAdminLeasesQuery = z
  .object({
    uid: z.string().min(1).max(200).optional(),
    ip: ZIpv4.optional(),
    offset: zQueryInt(0, 1_000_000).default(0),
    limit: zQueryInt(1, 1000).default(100),
  })
  .strict()
  .refine((q) => q.uid !== undefined || q.ip !== undefined, { message: 'give uid or ip', path: ['uid'] });
export type TAdminLeasesQuery = z.infer<typeof ZAdminLeasesQuery>;

export const ZAdminLeasesResponse = z.object({ leases: z.array(ZAdminLease), total: z.number().int() });
export type TAdminLeasesResponse = z.infer<typeof ZAdminLeasesResponse>;

/** `POST /admin/leases/{id}/credit` body: why staff credit it (kept in the audit trail). */
export const ZLeaseCreditRequest = z.object({ reason: z.string().max(500).optional() }).strict();

/**
 * `POST /admin/leases/{id}/refund` body: why staff refund it on the customer's request (kept in the
 * audit trail). Optional as a whole: older callers post no body (Fastify gives null).
 */
export const ZStaffRefundRequest = ZLeaseCreditRequest.nullish();

/** `POST /admin/leases/{id}/credit` answer. */
export const ZLeaseCreditResult = z.object({
  leaseID: z.string(),
  userId: z.string(),
  creditC: ZCents,
  balanceC: ZCents,
});
export type TLeaseCreditResult = z.infer<typeof ZLeaseCreditResult>;
