import type { Cents } from '@pm/money';
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  pgSequence,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { accounts } from './accounts.ts';
import { MONEY_BOUND_SQL } from './bounds.ts';

/**
 * Derivation indexes of deposit addresses, one sequence per currency so each operator wallet sees
 * consecutive indexes (its gap limit counts unused ones). A sequence never hands an index out
 * twice, even when the transaction that took it rolls back.
 */
export const depositIndexBtc = pgSequence('deposit_index_btc', { startWith: 0, minValue: 0 });
export const depositIndexLtc = pgSequence('deposit_index_ltc', { startWith: 0, minValue: 0 });
export const depositIndexTrc20usdt = pgSequence('deposit_index_trc20usdt', { startWith: 0, minValue: 0 });

/**
 * A crypto charge (top-up): a fresh address derived from the operator's extended public key, the
 * dollar amount asked for, and the rate locked when it was created. Payments to the address are
 * `crypto_payments`; the aggregates here are updated in the transaction that credits one.
 */
export const cryptoCharges = pgTable(
  'crypto_charges',
  {
    /** The charge's `uid`. */
    id: uuid('id').primaryKey(),
    /** Public code of the charge page (`/charges/{code}`). */
    code: text('code').notNull().unique(),
    userId: text('user_id')
      .notNull()
      .references(() => accounts.userId),
    currency: text('currency', { enum: ['btc', 'ltc', 'trc20usdt'] }).notNull(),
    address: text('address').notNull(),
    /** First 8 bytes (hex) of sha256 of the account-level public key the address was derived from. */
    xpubFp: text('xpub_fp').notNull(),
    /** Index on the receive chain (`…/0/index`). */
    derivationIndex: bigint('derivation_index', { mode: 'number' }).notNull(),
    amountUsdC: bigint('amount_usd_c', { mode: 'number' }).$type<Cents>().notNull(),
    /** Cents per whole coin, locked at creation (or re-pricing). */
    rateC: bigint('rate_c', { mode: 'number' }).$type<Cents>().notNull(),
    rateSource: text('rate_source').notNull(),
    /** Base units asked for (satoshi, litoshi, 10^-6 USDT). */
    dueBase: bigint('due_base', { mode: 'bigint' }).notNull(),
    bonusPct: integer('bonus_pct').notNull().default(0),
    /**
     * Most cents the charge credits to the balance (snapshotted: `PAYMENTS_CAP_MULTIPLE` times the
     * amount, never past MAX_DEPOSIT_C); anything above is parked in `crypto_held_credits`. Null on
     * charges made before the cap existed (the current setting applies).
     */
    capC: bigint('cap_c', { mode: 'number' }).$type<Cents>(),
    status: text('status', { enum: ['new', 'pending', 'partial', 'paid', 'expired'] })
      .notNull()
      .default('new'),
    /** Confirmed base units credited so far. */
    receivedBase: bigint('received_base', { mode: 'bigint' }).notNull().default(sql`0`),
    creditedC: bigint('credited_c', { mode: 'number' }).$type<Cents>().notNull().default(sql`0`),
    bonusC: bigint('bonus_c', { mode: 'number' }).$type<Cents>().notNull().default(sql`0`),
    late: boolean('late').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** The watcher polls the address until then: expiry plus the grace window, a hard end. */
    watchUntil: timestamp('watch_until', { withTimezone: true }).notNull(),
    /** Not polled again before this (the polling schedule's back-off, and after errors). */
    nextCheckAt: timestamp('next_check_at', { withTimezone: true }).notNull(),
    checkFailures: integer('check_failures').notNull().default(0),
    lastCheckedAt: timestamp('last_checked_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('crypto_charges_address_uq').on(t.currency, t.address),
    uniqueIndex('crypto_charges_derivation_uq').on(t.currency, t.xpubFp, t.derivationIndex),
    index('crypto_charges_user_idx').on(t.userId, t.currency, t.status),
    index('crypto_charges_watch_idx').on(t.watchUntil, t.nextCheckAt),
    check(
      'crypto_charges_amounts',
      sql`${t.amountUsdC} > 0 AND ${t.amountUsdC} <= ${MONEY_BOUND_SQL} AND ${t.rateC} > 0 AND ${t.dueBase} > 0
        AND ${t.creditedC} >= 0 AND ${t.bonusC} >= 0 AND ${t.receivedBase} >= 0
        AND ${t.bonusPct} BETWEEN 0 AND 100`,
    ),
  ],
);

/**
 * One on-chain payment to a charge's address: an output (`txid`, `vout`) on Bitcoin and Litecoin,
 * a USDT transfer (`txid`, recipient) on TRON. The unique key is what credits each one exactly once:
 * `state` goes to 'credited' in the same transaction as its ledger records.
 */
export const cryptoPayments = pgTable(
  'crypto_payments',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    chargeId: uuid('charge_id')
      .notNull()
      .references(() => cryptoCharges.id),
    currency: text('currency', { enum: ['btc', 'ltc', 'trc20usdt'] }).notNull(),
    txid: text('txid').notNull(),
    /** The output index (UTXO chains) or the recipient address (TRC20). */
    outKey: text('out_key').notNull(),
    valueBase: bigint('value_base', { mode: 'bigint' }).notNull(),
    state: text('state', { enum: ['pending', 'credited', 'dropped'] })
      .notNull()
      .default('pending'),
    firstSeenAt: timestamp('first_seen_at', { withTimezone: true }).notNull(),
    blockHeight: bigint('block_height', { mode: 'number' }),
    blockHash: text('block_hash'),
    blockTime: timestamp('block_time', { withTimezone: true }),
    creditedAt: timestamp('credited_at', { withTimezone: true }),
    /** Rate the credit used (cents per coin), and the cents credited for it and as bonus. */
    rateC: bigint('rate_c', { mode: 'number' }).$type<Cents>(),
    creditedC: bigint('credited_c', { mode: 'number' }).$type<Cents>(),
    bonusC: bigint('bonus_c', { mode: 'number' }).$type<Cents>(),
    late: boolean('late').notNull().default(false),
    /** When a credited output was seen 6 deep (final; TRC-20: solidified, final when credited). */
    finalAt: timestamp('final_at', { withTimezone: true }),
    /** When a credited output was found gone from the chain (flagged for staff; the credit stays). */
    vanishedAt: timestamp('vanished_at', { withTimezone: true }),
    /** A credited, not yet final output is re-read from the chain after this. */
    recheckAt: timestamp('recheck_at', { withTimezone: true }),
  },
  (t) => [
    index('crypto_payments_recheck_idx').on(t.currency, t.recheckAt),
    uniqueIndex('crypto_payments_output_uq').on(t.currency, t.txid, t.outKey),
    index('crypto_payments_charge_idx').on(t.chargeId),
    check('crypto_payments_value_pos', sql`${t.valueBase} > 0`),
  ],
);

/** The watcher's health per chain: last good poll (the metric's source) and the chain-wide back-off. */
export const paymentWatchState = pgTable('payment_watch_state', {
  chain: text('chain').primaryKey(),
  lastOkAt: timestamp('last_ok_at', { withTimezone: true }),
  lastErrorAt: timestamp('last_error_at', { withTimezone: true }),
  lastError: text('last_error'),
  failures: integer('failures').notNull().default(0),
  backoffUntil: timestamp('backoff_until', { withTimezone: true }),
  /** The UTC day (YYYY-MM-DD) `budgetUsed` counts chain API requests of (the per-day budget). */
  budgetDay: text('budget_day'),
  budgetUsed: integer('budget_used').notNull().default(0),
});
