import { accounts, type DbOrTx } from '@pm/db';
import { eq } from 'drizzle-orm';

export type AccountRow = typeof accounts.$inferSelect;

export interface NewAccount {
  userId: string;
  email: string;
  permissions: string[];
  refcode: string | null;
}

/** The only place that reads and writes `accounts` rows (the balance column belongs to the ledger). */
export interface AccountRepository {
  findById(userId: string, tx?: DbOrTx): Promise<AccountRow | undefined>;
  /** Locks the row (SELECT … FOR UPDATE) for the rest of the transaction. */
  lockById(userId: string, tx: DbOrTx): Promise<AccountRow | undefined>;
  /** Inserts the account unless it exists; never changes an existing row. */
  insertIfMissing(account: NewAccount, tx?: DbOrTx): Promise<void>;
  setPermissions(userId: string, permissions: string[], tx?: DbOrTx): Promise<void>;
  /** undefined when the account does not exist. */
  findBlocked(userId: string, tx?: DbOrTx): Promise<boolean | undefined>;
}

/** Builds the accounts repository over a Drizzle database. */
export function createAccountRepository(db: DbOrTx): AccountRepository {
  return {
    async findById(userId, tx = db) {
      const rows = await tx.select().from(accounts).where(eq(accounts.userId, userId)).limit(1);
      return rows[0];
    },
    async lockById(userId, tx) {
      const rows = await tx.select().from(accounts).where(eq(accounts.userId, userId)).for('update');
      return rows[0];
    },
    async insertIfMissing(account, tx = db) {
      await tx.insert(accounts).values(account).onConflictDoNothing({ target: accounts.userId });
    },
    async setPermissions(userId, permissions, tx = db) {
      await tx.update(accounts).set({ permissions }).where(eq(accounts.userId, userId));
    },
    async findBlocked(userId, tx = db) {
      const rows = await tx
        .select({ blocked: accounts.blocked })
        .from(accounts)
        .where(eq(accounts.userId, userId))
        .limit(1);
      return rows[0]?.blocked;
    },
  };
}
