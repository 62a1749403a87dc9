import { type Db, type DbOrTx, pricingRules, type Tx } from '@pm/db';
import { asc, sql } from 'drizzle-orm';
import type { PriceRule } from './pricing.rules.ts';

/** One stored rule row. */
export type PricingRuleRow = typeof pricingRules.$inferSelect;

/** The only place that reads and writes `pricing_rules`; every method takes the caller's `tx` last. */
export function createPricingRepository(db: Db) {
  return {
    /** Every rule, position 1 first. */
    async findRules(tx: DbOrTx = db): Promise<PricingRuleRow[]> {
      return tx.select().from(pricingRules).orderBy(asc(pricingRules.position));
    },

    /**
     * Replaces the whole list inside the caller's transaction. The table lock (which readers do not
     * wait for) makes concurrent replacements take turns instead of colliding on positions.
     */
    async replaceRules(rules: readonly PriceRule[], updatedBy: string, tx: Tx): Promise<void> {
      await tx.execute(sql`LOCK TABLE ${pricingRules} IN SHARE ROW EXCLUSIVE MODE`);
      await tx.delete(pricingRules);
      await tx.insert(pricingRules).values(
        rules.map((r) => ({
          position: r.position,
          cc: r.cc,
          conn: r.conn,
          minStars: r.minStars,
          maxStars: r.maxStars,
          fresh: r.fresh,
          priceExcC: r.priceExcC,
          priceShrC: r.priceShrC,
          note: r.note,
          updatedAt: sql`now()`,
          updatedBy,
        })),
      );
    },
  };
}

/** The pricing repository's functions. */
export type PricingRepository = ReturnType<typeof createPricingRepository>;
