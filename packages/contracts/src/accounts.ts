import { z } from 'zod';
import { ZCents, ZQueryDate, zQueryInt } from './common.ts';

/**
 * What a refusal for an unconfirmed address says (403 `emailNotConfirmed`), on the server and in
 * the web app alike.
 */
export const EMAIL_NOT_CONFIRMED_MESSAGE =
  'Confirm your email address first: open the link we sent you. Until then you can look around, but not add funds or buy.';

/** `GET /accounts/my`, `GET|PATCH /accounts/{id}`. `balanceCents` repeats `balanceC` for older clients. */
export const ZAccount = z.object({
  userID: z.string(),
  email: z.string(),
  balanceC: ZCents,
  balanceCents: ZCents,
  permissions: z.array(z.string()),
  refcode: z.string().nullable(),
  blocked: z.boolean(),
  /**
   * The sign-in host confirmed the address (the token's `email_verified`): until then the account
   * signs in but cannot add funds or buy (403 `emailNotConfirmed`).
   */
  emailVerified: z.boolean(),
});
export type TAccount = z.infer<typeof ZAccount>;

/** `PATCH /accounts/{id}` (staff): grant/revoke permissions and/or apply a balance change. */
export const ZPatchAccountRequest = z
  .object({
    permissions: z
      .object({
        add: z.array(z.string().min(1).max(64)).max(20).optional(),
        remove: z.array(z.string().min(1).max(64)).max(20).optional(),
      })
      .strict()
      .optional(),
    balanceDeltaC: ZCents.refine((n) => n !== 0, { message: 'must not be zero' }).optional(),
    /** Optional text the customer sees as the ledger memo (default 'Balance adjustment'). */
    memo: z.string().max(200).optional(),
    /** Why staff made the change, kept in the audit trail (optional; the admin screen asks for one). */
    reason: z.string().max(500).optional(),
  })
  .strict()
  .refine((b) => b.permissions !== undefined || b.balanceDeltaC !== undefined, {
    message: 'give permissions or balanceDeltaC',
    path: ['permissions'],
  });
export type TPatchAccountRequest = z.infer<typeof ZPatchAccountRequest>;

export const ZAccountIdParams = z.object({ id: z.string().min(1).max(200) });

/** Ledger row types; the Payments page shows them. */
export const TX_TYPES = [
  'deposit',
  /** The bonus percent of a crypto charge, its own record beside the deposit. */
  'bonus',
  'purchase',
  'renewal',
  'refund',
  'referral',
  'adjustment',
  'scorecheck',
  'port',
] as const;
export type TxType = (typeof TX_TYPES)[number];

export const ZTxRecord = z.object({
  id: z.number().int(),
  time: z.string(),
  type: z.string(),
  memo: z.string(),
  amtC: ZCents,
  balC: ZCents,
});
export type TTxRecord = z.infer<typeof ZTxRecord>;

/** `GET /txrecords`: newest first. `end` is exclusive (the client sends last date + 1 day). */
export const ZTxRecordsQuery = z
  .object({
    offset: zQueryInt(0, 1_000_000).default(0),
    limit: zQueryInt(1, 1000).default(10),
    start: ZQueryDate.optional(),
    end: ZQueryDate.optional(),
    uid: z.string().min(1).max(200).optional(),
  })
  .strict();
export type TTxRecordsQuery = z.infer<typeof ZTxRecordsQuery>;

export const ZTxRecordsResponse = z.object({ txRecords: z.array(ZTxRecord), total: z.number().int() });
export type TTxRecordsResponse = z.infer<typeof ZTxRecordsResponse>;
