import { accounts, type Db, type DbOrTx, txrecords } from '@pm/db';
import type { Cents } from '@pm/money';
import { and, count, eq, sum } from 'drizzle-orm';

/**
 * Reads what referral rewards need: an account's code and inviter (`accounts.refcode`,
 * `referred_by`) and its ledger records by type. It writes nothing: rewards go through the ledger.
 */
export function createReferralRepository(db: Db) {
  return {
    /** The user id of whoever invited `userId` (the account whose refcode is its referred_by). */
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
    /** How many `deposit` records the account has (the caller holds its row lock). */
    async countDeposits(userId: string, tx: DbOrTx = db): Promise<number> {
      const rows = await tx
        .select({ n: count() })
        .from(txrecords)
        .where(and(eq(txrecords.userId, userId), eq(txrecords.type, 'deposit')));
      return Number(rows[0]?.n ?? 0);
    },
    async findRefcode(userId: string, tx: DbOrTx = db): Promise<string | undefined> {
      const rows = await tx
        .select({ refcode: accounts.refcode })
        .from(accounts)
        .where(eq(accounts.userId, userId));
      return rows[0]?.refcode;
    },
    async countInvited(refcode: string, tx: DbOrTx = db): Promise<number> {
      const rows = await tx.select({ n: count() }).from(accounts).where(eq(accounts.referredBy, refcode));
      return Number(rows[0]?.n ?? 0);
    },
    async sumRewards(userId: string, tx: DbOrTx = db): Promise<Cents> {
      const rows = await tx
        .select({ total: sum(txrecords.amtC) })
        .from(txrecords)
        .where(and(eq(txrecords.userId, userId), eq(txrecords.type, 'referral')));
      return Number(rows[0]?.total ?? 0) as Cents;
    },
  };
}
