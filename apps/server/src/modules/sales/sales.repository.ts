import { type Db, type DbOrTx, saleRequests, type Tx } from '@pm/db';
import type { Cents } from '@pm/money';
import { and, eq } from 'drizzle-orm';

/** A stored `Idempotency-Key` of a sale. */
export type SaleRequestRow = typeof saleRequests.$inferSelect;

/** What a sale under a claimed key answered: its lease or port package, and what it charged (or paid back). */
export interface SaleResult {
  leaseId?: string | undefined;
  packageId?: string | undefined;
  priceC?: Cents | undefined;
}

/** Data access of the sales' idempotency keys (`sale_requests`). */
export function createSaleRequestRepository(db: Db) {
  return {
    /**
     * Claims the key for this transaction: inserts it, or (ON CONFLICT DO NOTHING) waits for a
     * parallel transaction holding the same key and does nothing. True when this transaction holds it.
     */
    async claim(
      row: { userId: string; idemKey: string; kind: string; fingerprint: string },
      tx: Tx,
    ): Promise<boolean> {
      const rows = await tx
        .insert(saleRequests)
        .values(row)
        .onConflictDoNothing()
        .returning({ userId: saleRequests.userId });
      return rows.length > 0;
    },

    /** The stored key of a customer; undefined when none. */
    async find(userId: string, idemKey: string, tx: DbOrTx = db): Promise<SaleRequestRow | undefined> {
      const rows = await tx
        .select()
        .from(saleRequests)
        .where(and(eq(saleRequests.userId, userId), eq(saleRequests.idemKey, idemKey)));
      return rows[0];
    },

    /** Records what the sale under a claimed key answered. */
    async setResult(key: { userId: string; idemKey: string }, result: SaleResult, tx: Tx): Promise<void> {
      await tx
        .update(saleRequests)
        .set(result)
        .where(and(eq(saleRequests.userId, key.userId), eq(saleRequests.idemKey, key.idemKey)));
    },
  };
}

/** The sale request repository's functions. */
export type SaleRequestRepository = ReturnType<typeof createSaleRequestRepository>;
