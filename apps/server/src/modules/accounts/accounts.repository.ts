import { accounts, type Db, type DbOrTx, type Tx } from '@pm/db';
import { and, count, eq, isNull, ne } from 'drizzle-orm';

export type AccountRow = typeof accounts.$inferSelect;

export interface NewAccount {
  userId: string;
  email: string;
  permissions: string[];
  /** Omitted: the database generates one. */
  refcode?: string | undefined;
  /** Referral code of the inviter, if any. */
  referredBy?: string | null | undefined;
  /** The token said the sign-in host confirmed the address. */
  emailVerified?: boolean | undefined;
}

/**
 * The only place that reads and writes `accounts` rows (the balance column belongs to the ledger,
 * `blocked` to identity). Every method takes the caller's `tx` last; `lock*` methods require one.
 */
export function createAccountRepository(db: Db) {
  return {
    async findById(userId: string, tx: DbOrTx = db): Promise<AccountRow | undefined> {
      const rows = await tx.select().from(accounts).where(eq(accounts.userId, userId)).limit(1);
      return rows[0];
    },
    /** Locks the row (SELECT … FOR UPDATE) for the rest of the transaction. */
    async lockById(userId: string, tx: Tx): Promise<AccountRow | undefined> {
      const rows = await tx.select().from(accounts).where(eq(accounts.userId, userId)).for('update');
      return rows[0];
    },
    /**
     * Inserts the account unless it exists; never changes an existing row. A refcode another
     * account already holds is a unique violation (`accounts_refcode_uq`) for the caller to handle.
     */
    async insertIfMissing(account: NewAccount, tx: DbOrTx = db): Promise<void> {
      const { refcode, ...rest } = account;
      await tx
        .insert(accounts)
        .values(refcode === undefined ? rest : { ...rest, refcode })
        .onConflictDoNothing({ target: accounts.userId });
    },
    async setPermissions(userId: string, permissions: string[], tx: DbOrTx = db): Promise<void> {
      await tx.update(accounts).set({ permissions }).where(eq(accounts.userId, userId));
    },
    /**
     * Records the inviter's code on an account that has none (never its own code); an account's
     * referrer, once set, never changes.
     */
    async attachReferrer(userId: string, referredBy: string, tx: DbOrTx = db): Promise<void> {
      await tx
        .update(accounts)
        .set({ referredBy })
        .where(
          and(eq(accounts.userId, userId), isNull(accounts.referredBy), ne(accounts.refcode, referredBy)),
        );
    },
    /** The user id of whoever invited `userId`: the account whose refcode is its `referred_by`. */
    async findReferrerId(userId: string, tx: DbOrTx = db): Promise<string | undefined> {
      const [me] = await tx
        .select({ referredBy: accounts.referredBy })
        .from(accounts)
        .where(eq(accounts.userId, userId));
      if (!me?.referredBy) return undefined;
      const rows = await tx
        .select({ userId: accounts.userId })
        .from(accounts)
        .where(eq(accounts.refcode, me.referredBy));
      return rows[0]?.userId;
    },
    /** How many accounts signed up with `refcode`. */
    async countReferredBy(refcode: string, tx: DbOrTx = db): Promise<number> {
      const rows = await tx.select({ n: count() }).from(accounts).where(eq(accounts.referredBy, refcode));
      return Number(rows[0]?.n ?? 0);
    },
    /** undefined when the account does not exist. */
    async findBlocked(userId: string, tx: DbOrTx = db): Promise<boolean | undefined> {
      const rows = await tx
        .select({ blocked: accounts.blocked })
        .from(accounts)
        .where(eq(accounts.userId, userId))
        .limit(1);
      return rows[0]?.blocked;
    },
    /**
     * Marks the address confirmed (once: never unset); true when this call changed it. Only the
     * token's claim leads here (`accounts.confirmEmail`).
     */
    async markEmailVerified(userId: string, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(accounts)
        .set({ emailVerified: true })
        .where(and(eq(accounts.userId, userId), eq(accounts.emailVerified, false)))
        .returning({ userId: accounts.userId });
      return rows.length > 0;
    },
    /**
     * The block flag, the tokens-valid-after time and the confirmed address the auth hook checks;
     * undefined without an account.
     */
    async findAccess(
      userId: string,
      tx: DbOrTx = db,
    ): Promise<{ blocked: boolean; tokensValidAfter: Date; emailVerified: boolean } | undefined> {
      const rows = await tx
        .select({
          blocked: accounts.blocked,
          tokensValidAfter: accounts.tokensValidAfter,
          emailVerified: accounts.emailVerified,
        })
        .from(accounts)
        .where(eq(accounts.userId, userId))
        .limit(1);
      return rows[0];
    },
  };
}

/** The accounts repository's functions. */
export type AccountRepository = ReturnType<typeof createAccountRepository>;
