import { type Cents, cents } from '@pm/money';
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { MONEY_BOUND_SQL } from './bounds.ts';

/** Market account of a signed-in user: the prepaid balance in integer cents. */
export const accounts = pgTable(
  'accounts',
  {
    /** The identity provider's subject (`sub`). */
    userId: text('user_id').primaryKey(),
    email: text('email').notNull().default(''),
    balanceC: bigint('balance_c', { mode: 'number' }).$type<Cents>().notNull().default(cents(0)),
    permissions: text('permissions').array().notNull().default(sql`'{}'::text[]`),
    /**
     * The account's own referral code: the identity provider's when its token carries one, else
     * generated here, so every account has one. Unique: a referral reward finds its referrer by it.
     */
    refcode: text('refcode')
      .notNull()
      .default(sql`upper(substr(md5(random()::text || clock_timestamp()::text), 1, 10))`),
    /** Referral code of whoever invited this account (from the sign-up's invite link), if any. */
    referredBy: text('referred_by'),
    blocked: boolean('blocked').notNull().default(false),
    /**
     * The sign-in host confirmed the address (the token's `email_verified` claim): until then the
     * account signs in but cannot top up or buy. Set by the market API from the claim, never unset.
     */
    emailVerified: boolean('email_verified').notNull().default(false),
    /**
     * Access tokens issued (`iat`) before this second are refused: the identity host moves it on a
     * password change or reset, a block and a two-factor change (beside `users.tokens_valid_after`).
     */
    tokensValidAfter: timestamp('tokens_valid_after', { withTimezone: true }).notNull().default(sql`'epoch'`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('accounts_refcode_uq').on(t.refcode),
    index('accounts_referred_by_idx').on(t.referredBy),
    check('accounts_balance_nonneg', sql`${t.balanceC} >= 0`),
    check('accounts_balance_max', sql`${t.balanceC} <= ${MONEY_BOUND_SQL}`),
  ],
);

/** The ledger: one row per balance change, written in the same transaction as the change. */
export const txrecords = pgTable(
  'txrecords',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => accounts.userId),
    time: timestamp('time', { withTimezone: true }).notNull().defaultNow(),
    type: text('type').notNull(),
    memo: text('memo').notNull().default(''),
    amtC: bigint('amt_c', { mode: 'number' }).$type<Cents>().notNull(),
    /** Balance right after this change. */
    balC: bigint('bal_c', { mode: 'number' }).$type<Cents>().notNull(),
    /** Set for every credit from outside; the unique index makes a replay a no-op. */
    idemKey: text('idem_key'),
  },
  (t) => [
    index('txrecords_user_time_idx').on(t.userId, t.time),
    uniqueIndex('txrecords_idem_key_uq').on(t.idemKey),
    check('txrecords_bal_nonneg', sql`${t.balC} >= 0`),
    check(
      'txrecords_amounts_bounded',
      sql`${t.balC} <= ${MONEY_BOUND_SQL} AND ${t.amtC} BETWEEN -${MONEY_BOUND_SQL} AND ${MONEY_BOUND_SQL}`,
    ),
  ],
);
