import type { Cents } from '@pm/money';
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { MONEY_BOUND_SQL } from './bounds.ts';

/**
 * The operator's price list for the shop: an ordered list of rules, each matching agents by
 * country, connection, clean score range and newness (a null condition matches anything), and
 * giving a private and a shared price. An agent's price is the first matching rule by `position`;
 * the last rule matches everything (checked by the pricing service when staff replace the list).
 * Seeded by migration 0005 with the defaults documented in apps/server/README.md.
 */
export const pricingRules = pgTable(
  'pricing_rules',
  {
    /** 1-based order; the first matching rule wins. */
    position: integer('position').primaryKey(),
    /** Country code, or null for every country. */
    cc: text('cc'),
    /** 'wifi' or 'cell', or null for both. */
    conn: text('conn', { enum: ['wifi', 'cell'] }),
    /** Clean score range, inclusive (1-10). */
    minStars: integer('min_stars').notNull().default(1),
    maxStars: integer('max_stars').notNull().default(10),
    /** true: only New agents (not sold in 30 days); false: only sold ones; null: either. */
    fresh: boolean('fresh'),
    priceExcC: bigint('price_exc_c', { mode: 'number' }).$type<Cents>().notNull(),
    priceShrC: bigint('price_shr_c', { mode: 'number' }).$type<Cents>().notNull(),
    /** Staff's label for the rule. */
    note: text('note').notNull().default(''),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    /** Staff user who saved the list; null for the migration's defaults. */
    updatedBy: text('updated_by'),
  },
  (t) => [
    check('pricing_rules_position_pos', sql`${t.position} >= 1`),
    check(
      'pricing_rules_stars',
      sql`1 <= ${t.minStars} AND ${t.minStars} <= ${t.maxStars} AND ${t.maxStars} <= 10`,
    ),
    check(
      'pricing_rules_prices',
      sql`${t.priceExcC} BETWEEN 0 AND ${MONEY_BOUND_SQL} AND ${t.priceShrC} BETWEEN 0 AND ${MONEY_BOUND_SQL}`,
    ),
  ],
);
