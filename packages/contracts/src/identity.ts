import { z } from 'zod';

/**
 * The identity host's JSON API (rules §7, "Auth API (admin)" and "Identity service"): the bodies it
 * reads and the answers it gives. Its errors have the market API's body (`ZErrorBody` in
 * common.ts: `error` the code, `message` the text to show, `field` for a body field at fault);
 * oidc-provider's OAuth endpoints (`/token`, `/auth`, ...) keep the standard's `{ error,
 * error_description }`.
 */

/** An e-mail address as typed; the host trims and lower-cases it and answers for a malformed one. */
const email = z.string().max(320);
/** Why staff act, for the audit trail; trimmed and cut to 500 characters by the host. */
const reason = z.string().max(10_000).optional();

/** `POST /dbconnections/change_code` and `POST /administator/user/info/`. */
export const ZIdentityEmailBody = z.object({ email });
export type TIdentityEmailBody = z.infer<typeof ZIdentityEmailBody>;

/** `POST /administator/user/block/`: `blocked` sets that state; without it the state toggles. */
export const ZUserBlockBody = z.object({
  email,
  blocked: z.boolean({ error: 'must be true or false' }).optional(),
  reason,
});
export type TUserBlockBody = z.infer<typeof ZUserBlockBody>;

export const ZUserBlockResult = z.object({ blocked: z.boolean(), email: z.string() });
export type TUserBlockResult = z.infer<typeof ZUserBlockResult>;

/** `POST /administator/user/password/change`: the host checks the password's length itself. */
export const ZUserPasswordBody = z.object({ email, password: z.string().max(10_000), reason });
export type TUserPasswordBody = z.infer<typeof ZUserPasswordBody>;

/** `POST /administator/user/password/reset-link`. */
export const ZUserResetLinkBody = z.object({ email, reason });
export type TUserResetLinkBody = z.infer<typeof ZUserResetLinkBody>;

/** `POST /administator/user/two-factor/reset`: turns the user's two-factor sign-in off (audited). */
export const ZUserTwoFactorResetBody = z.object({ email, reason });
export type TUserTwoFactorResetBody = z.infer<typeof ZUserTwoFactorResetBody>;

/**
 * `POST /handoff/token`: the web app redeems the one-time code of a `?token=` hand-off with the
 * PKCE verifier its tab kept (RFC 7636 S256), for an access token of the market API.
 */
export const ZHandoffRedeemBody = z.object({
  code: z.string().min(1).max(200),
  code_verifier: z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/, 'must be an RFC 7636 verifier'),
});
export type THandoffRedeemBody = z.infer<typeof ZHandoffRedeemBody>;

export const ZHandoffToken = z.object({
  access_token: z.string(),
  token_type: z.string(),
  expires_in: z.number().int(),
});
export type THandoffToken = z.infer<typeof ZHandoffToken>;

/** The answer of a staff change to a user: done, for this (normalised) address. */
export const ZUserChangeResult = z.object({ ok: z.literal(true), email: z.string() });
export type TUserChangeResult = z.infer<typeof ZUserChangeResult>;

/** The user data staff see (rules §3, Admin user data, plus the user id and the inviter). */
export const ZIdentityUserInfo = z.object({
  username: z.string(),
  emailVerified: z.boolean(),
  email: z.string(),
  inviteCode: z.string().nullable(),
  created: z.string(),
  lastLogin: z.string().nullable(),
  lastIp: z.string().nullable(),
  blocked: z.boolean(),
  userId: z.string(),
  invitedBy: z.string().nullable().optional(),
  /** Whether the user signs in with a second factor (TOTP). */
  twoFactor: z.boolean().optional(),
});
export type TIdentityUserInfo = z.infer<typeof ZIdentityUserInfo>;

/** `POST /dbconnections/change_code`'s answer: the same text for known and unknown addresses. */
export const ZPasswordResetSent = z.string();

/**
 * `POST /dbconnections/verification_email`'s answer: `sent` false when the address was already
 * confirmed (nothing to send; the caller's token may predate the confirmation).
 */
export const ZVerificationEmailSent = z.object({ sent: z.boolean(), email: z.string() });
export type TVerificationEmailSent = z.infer<typeof ZVerificationEmailSent>;
