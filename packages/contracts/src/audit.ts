import { z } from 'zod';
import { ZQueryDate, zQueryInt } from './common.ts';

/**
 * The staff actions the audit trail records (`<area>.<verb>`). The server writes the account and
 * lease ones, the identity host the user ones, payments the held-credit ones.
 */
export const AUDIT_ACTIONS = [
  /** PATCH /accounts/{id} balanceDeltaC: before/after `{ balanceC }`. */
  'account.balance',
  /** PATCH /accounts/{id} permissions: before/after `{ permissions }`. */
  'account.permissions',
  /** POST /admin/leases/{id}/refund: before `{ userId, until }`, after `{ refundC, balanceC }`. */
  'lease.refund',
  /** POST /admin/leases/{id}/credit: before `{ userId, refundAmountC: null }`, after `{ creditC, balanceC }`. */
  'lease.credit',
  /** Staff release a held credit to the customer's balance. */
  'payment.release',
  /** Staff return a held credit (it never reaches the balance). */
  'payment.return',
  /**
   * POST /crypto/deep-check/, target the customer: per credited output before `{ chargeId, txid,
   * outKey, state }`, after `{ chargeId, state, creditedC, bonusC, heldC, balanceC }` (in the
   * credit's transaction); a customer looked up for nothing: before `{ query, charges }`, after
   * `{ credited: [], creditedC: 0 }`.
   */
  'payment.deepCheck',
  /** POST /administator/user/block/: before/after `{ blocked }`. */
  'user.block',
  'user.unblock',
  /** POST /administator/user/password/change: a password set by staff (never stored in the row). */
  'user.password',
  /** POST /administator/user/password/reset-link: a reset link mailed on staff's request. */
  'user.resetLink',
  /**
   * POST /administator/user/two-factor/reset (or the operator's CLI, actor `operator:<name>`):
   * before `{ twoFactor: true }`, after `{ twoFactor: false }`.
   */
  'user.twoFactorReset',
  /** PUT /pricing/rules, target `pricing_rules`: before/after `{ rows }`, the whole list. */
  'pricing.rules',
  /** PUT /pricing/ports, target `port_pricing`: before/after `{ rows }`, the whole table. */
  'pricing.ports',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What a service gives `audit.record` (the time is the database's `now()`, the transaction's start). */
export interface AuditRecordInput {
  actorId: string;
  action: AuditAction;
  targetId: string;
  before?: Record<string, unknown> | null | undefined;
  after?: Record<string, unknown> | null | undefined;
  reason?: string | null | undefined;
}

/** One row of `GET /admin/audit`. */
export const ZAuditEntry = z.object({
  id: z.number().int(),
  at: z.string(),
  actorId: z.string(),
  action: z.string(),
  targetId: z.string(),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
  reason: z.string().nullable(),
});
export type TAuditEntry = z.infer<typeof ZAuditEntry>;

/** `GET /admin/audit` (staff): newest first; `from` inclusive, `to` exclusive. */
export const ZAuditQuery = z
  .object({
    actor: z.string().min(1).max(200).optional(),
    target: z.string().min(1).max(200).optional(),
    action: z.enum(AUDIT_ACTIONS).optional(),
    from: ZQueryDate.optional(),
    to: ZQueryDate.optional(),
    offset: zQueryInt(0, 1_000_000).default(0),
    limit: zQueryInt(1, 500).default(50),
  })
  .strict();
export type TAuditQuery = z.infer<typeof ZAuditQuery>;

export const ZAuditResponse = z.object({ items: z.array(ZAuditEntry), total: z.number().int() });
export type TAuditResponse = z.infer<typeof ZAuditResponse>;
