import type { CurrencyId } from '@pm/contracts';
import { cryptoCharges, cryptoHeldCredits, cryptoPayments, type Db, type DbOrTx, type Tx } from '@pm/db';
import { and, count, desc, eq, gte, isNotNull, lt, type SQL, sql } from 'drizzle-orm';

/** A payment as stored. */
type PaymentRow = typeof cryptoPayments.$inferSelect;
/** A charge as stored. */
type ChargeRow = typeof cryptoCharges.$inferSelect;

/** A held credit as stored, with its payment's txid and charge's address. */
export type HeldRow = typeof cryptoHeldCredits.$inferSelect & { txid: string; address: string };

/**
 * What staff look at and decide beside the watcher: a user's payments, held credits
 * (`crypto_held_credits`), credited payments that vanished from the chain, and the wallet gap of
 * each currency.
 */
export function createPaymentsStaffRepository(db: Db) {
  const heldSelect = (tx: DbOrTx, where: SQL | undefined) =>
    tx
      .select({ h: cryptoHeldCredits, txid: cryptoPayments.txid, address: cryptoCharges.address })
      .from(cryptoHeldCredits)
      .innerJoin(cryptoPayments, eq(cryptoPayments.id, cryptoHeldCredits.paymentId))
      .innerJoin(cryptoCharges, eq(cryptoCharges.id, cryptoHeldCredits.chargeId))
      .where(where);
  const toHeld = (r: {
    h: typeof cryptoHeldCredits.$inferSelect;
    txid: string;
    address: string;
  }): HeldRow => ({
    ...r.h,
    txid: r.txid,
    address: r.address,
  });

  return {
    async listHeld(
      f: { state?: HeldRow['state'] | undefined; userId?: string | undefined; offset: number; limit: number },
      tx: DbOrTx = db,
    ): Promise<{ rows: HeldRow[]; total: number }> {
      const where = and(
        f.state ? eq(cryptoHeldCredits.state, f.state) : undefined,
        f.userId ? eq(cryptoHeldCredits.userId, f.userId) : undefined,
      );
      const [rows, total] = await Promise.all([
        heldSelect(tx, where).orderBy(desc(cryptoHeldCredits.id)).offset(f.offset).limit(f.limit),
        tx.select({ n: count() }).from(cryptoHeldCredits).where(where),
      ]);
      return { rows: rows.map(toHeld), total: Number(total[0]?.n ?? 0) };
    },
    async lockHeld(id: number, tx: Tx): Promise<HeldRow | undefined> {
      const rows = await heldSelect(tx, eq(cryptoHeldCredits.id, id)).for('update', {
        of: cryptoHeldCredits,
      });
      return rows[0] && toHeld(rows[0]);
    },
    async decideHeld(
      id: number,
      set: { state: 'released' | 'returned'; decidedAt: Date; decidedBy: string; note: string },
      tx: Tx,
    ): Promise<void> {
      await tx.update(cryptoHeldCredits).set(set).where(eq(cryptoHeldCredits.id, id));
    },
    /** A user's payments (staff list), newest first, with their charges' uid and address. */
    async listUserPayments(
      f: { userId: string; offset: number; limit: number; start?: Date | undefined; end?: Date | undefined },
      tx: DbOrTx = db,
    ): Promise<{ rows: { p: PaymentRow; c: ChargeRow }[]; total: number }> {
      const where = and(
        eq(cryptoCharges.userId, f.userId),
        f.start ? gte(cryptoPayments.firstSeenAt, f.start) : undefined,
        f.end ? lt(cryptoPayments.firstSeenAt, f.end) : undefined,
      );
      const [rows, total] = await Promise.all([
        tx
          .select({ p: cryptoPayments, c: cryptoCharges })
          .from(cryptoPayments)
          .innerJoin(cryptoCharges, eq(cryptoCharges.id, cryptoPayments.chargeId))
          .where(where)
          .orderBy(desc(cryptoPayments.id))
          .offset(f.offset)
          .limit(f.limit),
        tx
          .select({ n: count() })
          .from(cryptoPayments)
          .innerJoin(cryptoCharges, eq(cryptoCharges.id, cryptoPayments.chargeId))
          .where(where),
      ]);
      return { rows, total: Number(total[0]?.n ?? 0) };
    },
    /** Credited payments found gone from the chain, newest first (at most 500). */
    async listVanished(tx: DbOrTx = db) {
      return tx
        .select({ p: cryptoPayments, c: cryptoCharges })
        .from(cryptoPayments)
        .innerJoin(cryptoCharges, eq(cryptoCharges.id, cryptoPayments.chargeId))
        .where(isNotNull(cryptoPayments.vanishedAt))
        .orderBy(desc(cryptoPayments.vanishedAt))
        .limit(500);
    },
    /**
     * Per currency, the longest run of consecutive derivation indexes (on the current wallet) no
     * payment was ever seen on, up to the highest index handed out: a standard wallet stops
     * scanning after 20.
     */
    async longestUnusedRuns(fps: Partial<Record<CurrencyId, string>>, tx: DbOrTx = db) {
      const out: Partial<Record<CurrencyId, number>> = {};
      for (const [currency, fp] of Object.entries(fps) as [CurrencyId, string][]) {
        const result = (await tx.execute(sql`
          WITH used AS (
            SELECT DISTINCT c.derivation_index AS i FROM crypto_charges c
            WHERE c.currency = ${currency} AND c.xpub_fp = ${fp}
              AND EXISTS (SELECT 1 FROM crypto_payments p WHERE p.charge_id = c.id)
            UNION ALL SELECT -1
            UNION ALL SELECT COALESCE(MAX(derivation_index), -1) + 1 FROM crypto_charges
              WHERE currency = ${currency} AND xpub_fp = ${fp}
          ), gaps AS (SELECT i - LAG(i) OVER (ORDER BY i) - 1 AS gap FROM used)
          SELECT COALESCE(MAX(gap), 0) AS n FROM gaps`)) as unknown as { rows: { n: string | number }[] };
        out[currency] = Number(result.rows[0]?.n ?? 0);
      }
      return out;
    },
  };
}

/** The staff-side payments repository's functions. */
export type PaymentsStaffRepository = ReturnType<typeof createPaymentsStaffRepository>;
