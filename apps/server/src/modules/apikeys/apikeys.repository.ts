import { apiKeys, type Db, type DbOrTx, type Tx } from '@pm/db';
import { and, count, desc, eq, isNull, sql } from 'drizzle-orm';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** The only place in the server that reads and writes `api_keys`. */
export function createApiKeysRepository(db: Db) {
  return {
    /** Serialises a customer's key creations (the per-customer cap is counted under it). */
    async lockUser(userId: string, tx: Tx): Promise<void> {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('api_keys'), hashtext(${userId}))`);
    },
    async countActive(userId: string, tx: DbOrTx = db): Promise<number> {
      const rows = await tx
        .select({ n: count() })
        .from(apiKeys)
        .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)));
      return Number(rows[0]?.n ?? 0);
    },
    async insert(
      row: { userId: string; name: string; keyHash: string; prefix: string },
      tx: DbOrTx = db,
    ): Promise<ApiKeyRow> {
      const rows = await tx.insert(apiKeys).values(row).returning();
      const inserted = rows[0];
      if (!inserted) throw new Error('api_keys insert returned no row');
      return inserted;
    },
    /** Unrevoked keys, newest first. */
    async listActive(userId: string, tx: DbOrTx = db): Promise<ApiKeyRow[]> {
      return tx
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
        .orderBy(desc(apiKeys.createdAt));
    },
    /** Marks the caller's key revoked; false when it is not theirs or already revoked. */
    async revoke(userId: string, id: string, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(apiKeys)
        .set({ revokedAt: sql`now()` })
        .where(and(eq(apiKeys.id, id), eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
        .returning({ id: apiKeys.id });
      return rows.length === 1;
    },
    /** The owner of an unrevoked key by its hash; stamps `last_used_at` at most once a minute. */
    async useByHash(keyHash: string, tx: DbOrTx = db): Promise<string | null> {
      const rows = await tx
        .select({ id: apiKeys.id, userId: apiKeys.userId, lastUsedAt: apiKeys.lastUsedAt })
        .from(apiKeys)
        .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)));
      const row = rows[0];
      if (!row) return null;
      if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > 60_000) {
        await tx.update(apiKeys).set({ lastUsedAt: sql`now()` }).where(eq(apiKeys.id, row.id));
      }
      return row.userId;
    },
  };
}
export type ApiKeysRepository = ReturnType<typeof createApiKeysRepository>;
