import { accounts, type Db, type DbOrTx, type Tx, txrecords } from '@pm/db';
import type { Cents } from '@pm/money';
import { and, count, desc, eq, gt, gte, inArray, lt, type SQL, sql, sum } from 'drizzle-orm';

/** One ledger row as stored. */
export type TxRecordRow = typeof txrecords.$inferSelect;

export interface NewTxRecord {
  userId: string;
  type: string;
  memo: string;
  amtC: Cents;
  balC: Cents;
  idemKey: string | null;
}

export interface TxRecordFilter {
  userId: string;
  /** Inclusive. */
  start?: Date | undefined;
  /** Exclusive. */
  end?: Date | undefined;
}

function where(f: TxRecordFilter): SQL | undefined {
  return and(
    eq(txrecords.userId, f.userId),
    f.start ? gte(txrecords.time, f.start) : undefined,
    f.end ? lt(txrecords.time, f.end) : undefined,
  );
}

/**
 * The only place that reads and writes `txrecords` and `accounts.balance_c`. Every method takes
 * the caller's `tx` last; `lockBalance` requires one (a row lock outside a transaction is released at once).
 */
export function createLedgerRepository(db: Db) {
  return {
    /** Locks the account row (SELECT … FOR UPDATE) and returns its balance; undefined when the account is missing. */
    async lockBalance(userId: string, tx: Tx): Promise<Cents | undefined> {
      const rows = await tx
        .select({ balanceC: accounts.balanceC })
        .from(accounts)
        .where(eq(accounts.userId, userId))
        .for('update');
      return rows[0]?.balanceC;
    },
    /**
     * Locks the account row (SELECT … FOR UPDATE) and returns its balance, block and whether its
     * address is confirmed; undefined when missing.
     */
    async lockAccount(
      userId: string,
      tx: Tx,
    ): Promise<{ balanceC: Cents; blocked: boolean; emailVerified: boolean } | undefined> {
      const rows = await tx
        .select({
          balanceC: accounts.balanceC,
          blocked: accounts.blocked,
          emailVerified: accounts.emailVerified,
        })
        .from(accounts)
        .where(eq(accounts.userId, userId))
        .for('update');
      return rows[0];
    },
    /** The account's balance; undefined when the account is missing. */
    async findBalance(userId: string, tx: DbOrTx = db): Promise<Cents | undefined> {
      const rows = await tx
        .select({ balanceC: accounts.balanceC })
        .from(accounts)
        .where(eq(accounts.userId, userId));
      return rows[0]?.balanceC;
    },
    /** How many records of `type` the account has, and their sum in cents. */
    async totalsOfType(
      userId: string,
      type: string,
      tx: DbOrTx = db,
    ): Promise<{ count: number; sumC: Cents }> {
      const rows = await tx
        .select({ n: count(), total: sum(txrecords.amtC) })
        .from(txrecords)
        .where(and(eq(txrecords.userId, userId), eq(txrecords.type, type)));
      return { count: Number(rows[0]?.n ?? 0), sumC: Number(rows[0]?.total ?? 0) as Cents };
    },
    async findByIdemKey(idemKey: string, tx: DbOrTx = db): Promise<TxRecordRow | undefined> {
      const rows = await tx.select().from(txrecords).where(eq(txrecords.idemKey, idemKey)).limit(1);
      return rows[0];
    },
    /** Inserts a record; undefined when a record with the same idempotency key already exists (ON CONFLICT DO NOTHING). */
    async insert(row: NewTxRecord, tx: DbOrTx = db): Promise<TxRecordRow | undefined> {
      const rows = await tx
        .insert(txrecords)
        // clock_timestamp(), not now(): several moves in one transaction get distinct, ordered times.
        .values({ ...row, time: sql`clock_timestamp()` })
        .onConflictDoNothing({ target: txrecords.idemKey })
        .returning();
      return rows[0];
    },
    async setBalance(userId: string, balanceC: Cents, tx: DbOrTx = db): Promise<void> {
      await tx.update(accounts).set({ balanceC }).where(eq(accounts.userId, userId));
    },
    /** Newest first (by id: within one account id order is the balance chain order). */
    async findRecords(
      f: TxRecordFilter & { offset: number; limit: number },
      tx: DbOrTx = db,
    ): Promise<TxRecordRow[]> {
      return tx
        .select()
        .from(txrecords)
        .where(where(f))
        .orderBy(desc(txrecords.id))
        .offset(f.offset)
        .limit(f.limit);
    },
    async countRecords(f: TxRecordFilter, tx: DbOrTx = db): Promise<number> {
      const rows = await tx.select({ n: count() }).from(txrecords).where(where(f));
      return Number(rows[0]?.n ?? 0);
    },
    /** Records of `type` of the users after `since`, at most `limit`. */
    async findOfTypeSince(
      type: string,
      userIds: string[],
      since: Date,
      limit: number,
      tx: DbOrTx = db,
    ): Promise<TxRecordRow[]> {
      if (userIds.length === 0) return [];
      return tx
        .select()
        .from(txrecords)
        .where(and(eq(txrecords.type, type), gt(txrecords.time, since), inArray(txrecords.userId, userIds)))
        .limit(limit);
    },
  };
}

/** The ledger repository's functions. */
export type LedgerRepository = ReturnType<typeof createLedgerRepository>;
