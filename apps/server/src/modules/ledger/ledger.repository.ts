import { accounts, type DbOrTx, txrecords } from '@pm/db';
import { and, count, desc, eq, gte, lt, type SQL, sql } from 'drizzle-orm';

/** One ledger row as stored. */
export type TxRecordRow = typeof txrecords.$inferSelect;

export interface NewTxRecord {
  userId: string;
  type: string;
  memo: string;
  amtC: number;
  balC: number;
  idemKey: string | null;
}

export interface TxRecordFilter {
  userId: string;
  /** Inclusive. */
  start?: Date | undefined;
  /** Exclusive. */
  end?: Date | undefined;
}

/** The only place that reads and writes `txrecords` and `accounts.balance_c`. Every method takes the caller's `db` or `tx`. */
export interface LedgerRepository {
  /** Locks the account row (SELECT … FOR UPDATE) and returns its balance; undefined when the account is missing. */
  lockBalance(userId: string, tx: DbOrTx): Promise<number | undefined>;
  findByIdemKey(idemKey: string, tx?: DbOrTx): Promise<TxRecordRow | undefined>;
  /** Inserts a record; undefined when a record with the same idempotency key already exists (ON CONFLICT DO NOTHING). */
  insert(row: NewTxRecord, tx: DbOrTx): Promise<TxRecordRow | undefined>;
  setBalance(userId: string, balanceC: number, tx: DbOrTx): Promise<void>;
  /** Newest first (by id: within one account id order is the balance chain order). */
  findRecords(
    filter: TxRecordFilter & { offset: number; limit: number },
    tx?: DbOrTx,
  ): Promise<TxRecordRow[]>;
  countRecords(filter: TxRecordFilter, tx?: DbOrTx): Promise<number>;
}

function where(f: TxRecordFilter): SQL | undefined {
  return and(
    eq(txrecords.userId, f.userId),
    f.start ? gte(txrecords.time, f.start) : undefined,
    f.end ? lt(txrecords.time, f.end) : undefined,
  );
}

/** Builds the ledger repository over a Drizzle database. */
export function createLedgerRepository(db: DbOrTx): LedgerRepository {
  return {
    async lockBalance(userId, tx) {
      const rows = await tx
        .select({ balanceC: accounts.balanceC })
        .from(accounts)
        .where(eq(accounts.userId, userId))
        .for('update');
      return rows[0]?.balanceC;
    },
    async findByIdemKey(idemKey, tx = db) {
      const rows = await tx.select().from(txrecords).where(eq(txrecords.idemKey, idemKey)).limit(1);
      return rows[0];
    },
    async insert(row, tx) {
      const rows = await tx
        .insert(txrecords)
        // clock_timestamp(), not now(): several moves in one transaction get distinct, ordered times.
        .values({ ...row, time: sql`clock_timestamp()` })
        .onConflictDoNothing({ target: txrecords.idemKey })
        .returning();
      return rows[0];
    },
    async setBalance(userId, balanceC, tx) {
      await tx.update(accounts).set({ balanceC }).where(eq(accounts.userId, userId));
    },
    async findRecords(f, tx = db) {
      return tx
        .select()
        .from(txrecords)
        .where(where(f))
        .orderBy(desc(txrecords.id))
        .offset(f.offset)
        .limit(f.limit);
    },
    async countRecords(f, tx = db) {
      const rows = await tx.select({ n: count() }).from(txrecords).where(where(f));
      return Number(rows[0]?.n ?? 0);
    },
  };
}
