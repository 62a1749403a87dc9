import type { CurrencyId } from '@pm/contracts';
import {
  accounts,
  cryptoCharges,
  cryptoHeldCredits,
  cryptoPayments,
  type Db,
  type DbOrTx,
  paymentWatchState,
  type Tx,
} from '@pm/db';
import { and, asc, count, desc, eq, gt, inArray, lte, ne, notInArray, or, sql } from 'drizzle-orm';
import type { ObservedOutput } from './payments.chains.ts';

/** A charge as stored. */
export type ChargeRow = typeof cryptoCharges.$inferSelect;
/** A payment (one output) as stored. */
export type PaymentRow = typeof cryptoPayments.$inferSelect;
export type NewCharge = typeof cryptoCharges.$inferInsert;
/** The watcher's per-chain health row. */
export type WatchStateRow = typeof paymentWatchState.$inferSelect;

const SEQUENCES: Record<CurrencyId, string> = {
  btc: 'deposit_index_btc',
  ltc: 'deposit_index_ltc',
  trc20usdt: 'deposit_index_trc20usdt',
};

/** A charge due for a poll, with whether it has payments on record already. */
export interface DueCharge {
  id: string;
  address: string;
  createdAt: Date;
  expiresAt: Date;
  watchUntil: Date;
  status: ChargeRow['status'];
  hasPayments: boolean;
  checkFailures: number;
}

/**
 * The only place that reads and writes `crypto_charges`, `crypto_payments` and
 * `payment_watch_state`. Every method takes the caller's `tx` last; `lock*` methods require one.
 */
export function createPaymentsRepository(db: Db) {
  return {
    /** The next derivation index of the currency's sequence (never handed out twice). */
    async nextIndex(currency: CurrencyId, tx: DbOrTx = db): Promise<number> {
      // Both drivers (node-postgres, PGlite) answer execute() with `{ rows }`.
      const result = (await tx.execute(sql`SELECT nextval(${SEQUENCES[currency]}) AS n`)) as unknown as {
        rows: { n: string | number }[];
      };
      return Number(result.rows[0]?.n);
    },
    /** Serialises charge creation per user and currency for the rest of the transaction. */
    async lockUserCurrency(userId: string, currency: CurrencyId | '*', tx: Tx): Promise<void> {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`charge:${userId}:${currency}`}))`);
    },
    async insertCharge(row: NewCharge, tx: DbOrTx = db): Promise<ChargeRow> {
      const rows = await tx.insert(cryptoCharges).values(row).returning();
      return rows[0] as ChargeRow;
    },
    /**
     * The user's open charge in this currency for this amount with no payment yet (answered
     * again as it is, with its quote).
     */
    async findOpenCharge(
      userId: string,
      currency: CurrencyId,
      amountUsdC: number,
      now: Date,
      tx: DbOrTx = db,
    ) {
      const rows = await tx
        .select()
        .from(cryptoCharges)
        .where(
          and(
            eq(cryptoCharges.userId, userId),
            eq(cryptoCharges.currency, currency),
            eq(cryptoCharges.amountUsdC, amountUsdC as never),
            eq(cryptoCharges.status, 'new'),
            gt(cryptoCharges.expiresAt, now),
            sql`NOT EXISTS (SELECT 1 FROM crypto_payments p WHERE p.charge_id = crypto_charges.id)`,
          ),
        )
        .orderBy(desc(cryptoCharges.createdAt))
        .limit(1);
      return rows[0];
    },
    /** How many charges the user has open (new or pending, before expiry), every currency. */
    async countOpenCharges(userId: string, now: Date, tx: DbOrTx = db): Promise<number> {
      const rows = await tx
        .select({ n: count() })
        .from(cryptoCharges)
        .where(
          and(
            eq(cryptoCharges.userId, userId),
            inArray(cryptoCharges.status, ['new', 'pending']),
            gt(cryptoCharges.expiresAt, now),
          ),
        );
      return Number(rows[0]?.n ?? 0);
    },
    /**
     * The user's expired charge in this currency, on this wallet, that never saw a payment and
     * whose watch window has ended: its address (lowest index first) can serve the next charge.
     * Locked, so two creates never take the same one.
     */
    async lockReusableAddress(userId: string, currency: CurrencyId, xpubFp: string, now: Date, tx: Tx) {
      const rows = await tx
        .select()
        .from(cryptoCharges)
        .where(
          and(
            eq(cryptoCharges.userId, userId),
            eq(cryptoCharges.currency, currency),
            eq(cryptoCharges.xpubFp, xpubFp),
            eq(cryptoCharges.status, 'expired'),
            lte(cryptoCharges.watchUntil, now),
            sql`NOT EXISTS (SELECT 1 FROM crypto_payments p WHERE p.charge_id = crypto_charges.id)`,
          ),
        )
        .orderBy(asc(cryptoCharges.derivationIndex))
        .limit(1)
        .for('update', { skipLocked: true });
      return rows[0];
    },
    async updateCharge(id: string, set: Partial<NewCharge>, tx: DbOrTx = db): Promise<ChargeRow> {
      const rows = await tx.update(cryptoCharges).set(set).where(eq(cryptoCharges.id, id)).returning();
      return rows[0] as ChargeRow;
    },
    async findChargeById(id: string, tx: DbOrTx = db): Promise<ChargeRow | undefined> {
      return (await tx.select().from(cryptoCharges).where(eq(cryptoCharges.id, id)).limit(1))[0];
    },
    async findChargesByIds(ids: string[], tx: DbOrTx = db): Promise<ChargeRow[]> {
      if (ids.length === 0) return [];
      return tx.select().from(cryptoCharges).where(inArray(cryptoCharges.id, ids));
    },
    async findChargeByCode(code: string, tx: DbOrTx = db): Promise<ChargeRow | undefined> {
      return (await tx.select().from(cryptoCharges).where(eq(cryptoCharges.code, code)).limit(1))[0];
    },
    async lockCharge(id: string, tx: Tx): Promise<ChargeRow | undefined> {
      return (await tx.select().from(cryptoCharges).where(eq(cryptoCharges.id, id)).for('update'))[0];
    },
    /** Charges picked by staff's deep-check filter (newest first, at most 200). */
    async findCharges(
      f: { id?: string; address?: string; userId?: string; email?: string; currency?: CurrencyId },
      tx: DbOrTx = db,
    ): Promise<ChargeRow[]> {
      return tx
        .select({ c: cryptoCharges })
        .from(cryptoCharges)
        .innerJoin(accounts, eq(accounts.userId, cryptoCharges.userId))
        .where(
          and(
            f.id ? eq(cryptoCharges.id, f.id) : undefined,
            f.address ? eq(cryptoCharges.address, f.address) : undefined,
            f.userId ? eq(cryptoCharges.userId, f.userId) : undefined,
            f.email ? sql`lower(${accounts.email}) = lower(${f.email})` : undefined,
            f.currency ? eq(cryptoCharges.currency, f.currency) : undefined,
          ),
        )
        .orderBy(desc(cryptoCharges.createdAt))
        .limit(200)
        .then((rows) => rows.map((r) => r.c));
    },
    async findPayments(chargeIds: string[], tx: DbOrTx = db): Promise<PaymentRow[]> {
      if (chargeIds.length === 0) return [];
      return tx
        .select()
        .from(cryptoPayments)
        .where(inArray(cryptoPayments.chargeId, chargeIds))
        .orderBy(asc(cryptoPayments.id));
    },
    /**
     * Records an output seen on the chain (new rows 'pending'), refreshing the block fields of one
     * not yet credited; a 'dropped' one that shows up again is pending again. Never touches a
     * credited row.
     */
    async upsertObserved(
      chargeId: string,
      currency: CurrencyId,
      o: ObservedOutput,
      now: Date,
      tx: DbOrTx = db,
    ) {
      await tx
        .insert(cryptoPayments)
        .values({
          chargeId,
          currency,
          txid: o.txid,
          outKey: o.outKey,
          valueBase: o.valueBase,
          firstSeenAt: now,
          blockHeight: o.blockHeight ?? null,
          blockHash: o.blockHash ?? null,
          blockTime: o.blockTime === undefined ? null : new Date(o.blockTime),
        })
        .onConflictDoUpdate({
          target: [cryptoPayments.currency, cryptoPayments.txid, cryptoPayments.outKey],
          set: {
            blockHeight: sql`excluded.block_height`,
            blockHash: sql`excluded.block_hash`,
            blockTime: sql`excluded.block_time`,
            state: sql`'pending'`,
          },
          setWhere: ne(cryptoPayments.state, 'credited'),
        });
    },
    /** Marks the charge's uncredited payments the chain no longer shows as dropped. */
    async markDropped(
      chargeId: string,
      keep: { txid: string; outKey: string }[],
      tx: DbOrTx = db,
    ): Promise<void> {
      const keys = keep.map((k) => `${k.txid}:${k.outKey}`);
      await tx
        .update(cryptoPayments)
        .set({ state: 'dropped' })
        .where(
          and(
            eq(cryptoPayments.chargeId, chargeId),
            eq(cryptoPayments.state, 'pending'),
            keys.length > 0
              ? notInArray(sql`${cryptoPayments.txid} || ':' || ${cryptoPayments.outKey}`, keys)
              : undefined,
          ),
        );
    },
    async findPayment(currency: CurrencyId, txid: string, outKey: string, tx: DbOrTx = db) {
      const rows = await tx
        .select()
        .from(cryptoPayments)
        .where(
          and(
            eq(cryptoPayments.currency, currency),
            eq(cryptoPayments.txid, txid),
            eq(cryptoPayments.outKey, outKey),
          ),
        )
        .limit(1);
      return rows[0];
    },
    /**
     * Flips one payment to 'credited' unless it already is: the exactly-once gate. False when
     * another watcher credited it first (its transaction then owns the ledger records).
     */
    async markCredited(
      id: number,
      set: Pick<
        PaymentRow,
        | 'creditedAt'
        | 'rateC'
        | 'creditedC'
        | 'bonusC'
        | 'late'
        | 'blockHeight'
        | 'blockHash'
        | 'blockTime'
        | 'finalAt'
        | 'recheckAt'
      >,
      tx: Tx,
    ): Promise<boolean> {
      const rows = await tx
        .update(cryptoPayments)
        .set({ ...set, state: 'credited' })
        .where(and(eq(cryptoPayments.id, id), ne(cryptoPayments.state, 'credited')))
        .returning({ id: cryptoPayments.id });
      return rows.length === 1;
    },
    /** Parks the part of a payment past its charge's cap for staff. */
    async insertHeld(row: typeof cryptoHeldCredits.$inferInsert, tx: Tx): Promise<void> {
      await tx.insert(cryptoHeldCredits).values(row);
    },
    /** Marks charges expired that waited in vain (nothing arrived; or a pending payment never confirmed). */
    async expireCharges(now: Date, tx: DbOrTx = db): Promise<number> {
      const rows = await tx
        .update(cryptoCharges)
        .set({ status: 'expired' })
        .where(
          or(
            and(eq(cryptoCharges.status, 'new'), lte(cryptoCharges.expiresAt, now)),
            and(eq(cryptoCharges.status, 'pending'), lte(cryptoCharges.watchUntil, now)),
          ),
        )
        .returning({ id: cryptoCharges.id });
      return rows.length;
    },
    /** Open charges of a currency due for a poll, least recently checked first. */
    async findDueCharges(
      currency: CurrencyId,
      now: Date,
      limit: number,
      tx: DbOrTx = db,
    ): Promise<DueCharge[]> {
      return (
        tx
          .select({
            id: cryptoCharges.id,
            address: cryptoCharges.address,
            createdAt: cryptoCharges.createdAt,
            expiresAt: cryptoCharges.expiresAt,
            watchUntil: cryptoCharges.watchUntil,
            status: cryptoCharges.status,
            checkFailures: cryptoCharges.checkFailures,
            // Raw names: Drizzle drops the table qualifier of columns inside a select list.
            hasPayments: sql<boolean>`EXISTS (SELECT 1 FROM crypto_payments p WHERE p.charge_id = crypto_charges.id)`,
          })
          .from(cryptoCharges)
          .where(
            and(
              eq(cryptoCharges.currency, currency),
              gt(cryptoCharges.watchUntil, now),
              lte(cryptoCharges.nextCheckAt, now),
            ),
          )
          // When the day's budget is short, payments on their way and open charges go first.
          .orderBy(
            sql`(${cryptoCharges.status} = 'pending') DESC`,
            sql`(${cryptoCharges.expiresAt} > ${now}) DESC`,
            asc(cryptoCharges.nextCheckAt),
          )
          .limit(limit)
      );
    },
    /** Records a good poll of these charges and when each is polled next (one statement). */
    async markChecked(rows: { id: string; nextCheckAt: Date }[], now: Date, tx: DbOrTx = db): Promise<void> {
      if (rows.length === 0) return;
      const values = sql.join(
        rows.map((r) => sql`(${r.id}::uuid, ${r.nextCheckAt.toISOString()}::timestamptz)`),
        sql`, `,
      );
      await tx.execute(sql`
        UPDATE crypto_charges c SET last_checked_at = ${now.toISOString()}::timestamptz, check_failures = 0,
          next_check_at = v.t
        FROM (VALUES ${values}) AS v(id, t) WHERE c.id = v.id`);
    },
    /** Credited payments not final yet whose re-check is due, with their charge's address. */
    async findRecheckDue(currency: CurrencyId, now: Date, limit: number, tx: DbOrTx = db) {
      const rows = await tx
        .select({ p: cryptoPayments, address: cryptoCharges.address })
        .from(cryptoPayments)
        .innerJoin(cryptoCharges, eq(cryptoCharges.id, cryptoPayments.chargeId))
        .where(
          and(
            eq(cryptoPayments.currency, currency),
            eq(cryptoPayments.state, 'credited'),
            lte(cryptoPayments.recheckAt, now),
          ),
        )
        .orderBy(asc(cryptoPayments.recheckAt))
        .limit(limit);
      return rows.map((r) => ({ ...r.p, address: r.address }));
    },
    async updatePayment(
      id: number,
      set: Partial<Pick<PaymentRow, 'finalAt' | 'vanishedAt' | 'recheckAt'>>,
      tx: DbOrTx = db,
    ): Promise<void> {
      await tx.update(cryptoPayments).set(set).where(eq(cryptoPayments.id, id));
    },
    /** Backs one address off after a failed poll: 30 s doubling per failure, at most 10 minutes. */
    async markCheckFailed(id: string, failures: number, now: Date, tx: DbOrTx = db): Promise<void> {
      const delayMs = Math.min(30_000 * 2 ** Math.min(failures, 10), 600_000);
      await tx
        .update(cryptoCharges)
        .set({ checkFailures: failures + 1, nextCheckAt: new Date(now.getTime() + delayMs) })
        .where(eq(cryptoCharges.id, id));
    },
    async getWatchState(chain: string, tx: DbOrTx = db): Promise<WatchStateRow | undefined> {
      return (
        await tx.select().from(paymentWatchState).where(eq(paymentWatchState.chain, chain)).limit(1)
      )[0];
    },
    async listWatchStates(tx: DbOrTx = db): Promise<WatchStateRow[]> {
      return tx.select().from(paymentWatchState);
    },
    async saveWatchState(row: WatchStateRow, tx: DbOrTx = db): Promise<void> {
      const { chain, ...set } = row;
      await tx
        .insert(paymentWatchState)
        .values(row)
        .onConflictDoUpdate({ target: paymentWatchState.chain, set });
    },
  };
}

/** The payments repository's functions. */
export type PaymentsRepository = ReturnType<typeof createPaymentsRepository>;
