import { sql } from 'drizzle-orm';
import { bigint, boolean, index, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** Sign-in accounts owned by the identity app (the OpenID provider). */
export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    /** Stored lower-cased; unique. */
    email: text('email').notNull().unique(),
    emailVerified: boolean('email_verified').notNull().default(false),
    passwordHash: text('password_hash').notNull(),
    blocked: boolean('blocked').notNull().default(false),
    /** The user's own invite code (goes into the access token as the referral claim). */
    referralCode: text('referral_code').notNull().unique(),
    /** Referral code of the person who invited this user, kept from the invite link at sign-up. */
    invitedBy: text('invited_by'),
    permissions: text('permissions').array().notNull().default(sql`'{}'::text[]`),
    /** Tokens issued before this instant are refused by the API (password change, block). */
    tokensValidAfter: timestamp('tokens_valid_after', { withTimezone: true }).notNull().defaultNow(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastLoginAt: timestamp('last_login_at', { withTimezone: true }),
    lastLoginIp: text('last_login_ip'),
    /** Two-factor sign-in (TOTP, RFC 6238): the confirmed secret (base32), null while it is off. */
    totpSecret: text('totp_secret'),
    /** A secret shown for enrolment, kept until the user confirms it with a code (or starts over). */
    totpPendingSecret: text('totp_pending_secret'),
    /** When two-factor sign-in was turned on (null: off). */
    totpEnabledAt: timestamp('totp_enabled_at', { withTimezone: true }),
    /** The last TOTP time step accepted: a code is never accepted twice, nor an older one. */
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
    /** SHA-256 (hex) of each unused one-time recovery code (high-entropy codes, shown once). */
    totpRecoveryHashes: text('totp_recovery_hashes').array().notNull().default(sql`'{}'::text[]`),
  },
  (t) => [index('users_invited_by_idx').on(t.invitedBy)],
);

/** oidc-provider's adapter storage: one row per (model type, id), payload as JSON. */
export const oidcPayloads = pgTable(
  'oidc_payloads',
  {
    id: text('id').notNull(),
    type: text('type').notNull(),
    payload: jsonb('payload').notNull(),
    grantId: text('grant_id'),
    userCode: text('user_code'),
    uid: text('uid'),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    consumedAt: timestamp('consumed_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.type] }),
    index('oidc_payloads_grant_idx').on(t.grantId),
    index('oidc_payloads_uid_idx').on(t.uid),
    index('oidc_payloads_user_code_idx').on(t.userCode),
    index('oidc_payloads_expires_idx').on(t.expiresAt),
  ],
);

/** Single-use tokens mailed to users (password reset, email verification); only the hash is kept. */
export const emailTokens = pgTable(
  'email_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: ['reset', 'verify'] }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('email_tokens_user_idx').on(t.userId)],
);

/**
 * One-time codes of the web app's `?token=` hand-off: bound to the PKCE challenge of the browser
 * tab that started it, redeemed once within a minute for an access token; only the hash is kept.
 */
export const handoffCodes = pgTable(
  'handoff_codes',
  {
    codeHash: text('code_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** base64url SHA-256 of the tab's verifier (S256). */
    challenge: text('challenge').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('handoff_codes_user_idx').on(t.userId)],
);
