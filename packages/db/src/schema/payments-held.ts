import type { Cents } from '@pm/money';
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  check,
  index,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { accounts } from './accounts.ts';
import { MONEY_BOUND_SQL } from './bounds.ts';
import { cryptoCharges, cryptoPayments } from './payments.ts';

/**
 * Money that arrived on a charge but was not credited to the balance: the part of a payment past
 * the charge's cap, or a whole output worth more than the cap on its own. Staff release it (a
 * ledger `deposit` record, key `held:<id>`) or return it (sent back outside the system). At most
 * one row per payment.
 */
export const cryptoHeldCredits = pgTable(
  'crypto_held_credits',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    paymentId: bigint('payment_id', { mode: 'number' })
      .notNull()
      .references(() => cryptoPayments.id),
    chargeId: uuid('charge_id')
      .notNull()
      .references(() => cryptoCharges.id),
    userId: text('user_id')
      .notNull()
      .references(() => accounts.userId),
    currency: text('currency', { enum: ['btc', 'ltc', 'trc20usdt'] }).notNull(),
    /** Base units held (the payment's part past the cap). */
    valueBase: bigint('value_base', { mode: 'bigint' }).notNull(),
    /** What they are worth at the rate used for the payment; what a release credits. */
    amountC: bigint('amount_c', { mode: 'number' }).$type<Cents>().notNull(),
    rateC: bigint('rate_c', { mode: 'number' }).$type<Cents>().notNull(),
    reason: text('reason', { enum: ['overCap', 'outputOverCap'] }).notNull(),
    state: text('state', { enum: ['held', 'released', 'returned'] })
      .notNull()
      .default('held'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    /** The staff member who released or returned it. */
    decidedBy: text('decided_by'),
    note: text('note'),
  },
  (t) => [
    uniqueIndex('crypto_held_credits_payment_uq').on(t.paymentId),
    index('crypto_held_credits_state_idx').on(t.state, t.createdAt),
    check(
      'crypto_held_credits_amounts',
      sql`${t.valueBase} > 0 AND ${t.amountC} >= 0 AND ${t.amountC} <= ${MONEY_BOUND_SQL} AND ${t.rateC} > 0`,
    ),
  ],
);
