import { type Db, type DbOrTx, webhookDeliveries, webhookEndpoints } from '@pm/db';
import { and, count, desc, eq, inArray, sql } from 'drizzle-orm';

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

/** The only place in the server that reads and writes `webhook_endpoints` and `webhook_deliveries`. */
export function createWebhooksRepository(db: Db) {
  return {
    async countEndpoints(userId: string, tx: DbOrTx = db): Promise<number> {
      const rows = await tx
        .select({ n: count() })
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.userId, userId));
      return Number(rows[0]?.n ?? 0);
    },
    async insertEndpoint(row: { userId: string; url: string; secret: string }, tx: DbOrTx = db) {
      const [inserted] = await tx.insert(webhookEndpoints).values(row).returning();
      if (!inserted) throw new Error('webhook_endpoints insert returned no row');
      return inserted;
    },
    async listEndpoints(userId: string, tx: DbOrTx = db): Promise<WebhookEndpointRow[]> {
      return tx
        .select()
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.userId, userId))
        .orderBy(desc(webhookEndpoints.createdAt));
    },
    async findEndpoint(userId: string, id: string, tx: DbOrTx = db): Promise<WebhookEndpointRow | undefined> {
      const rows = await tx
        .select()
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.userId, userId)));
      return rows[0];
    },
    async deleteEndpoint(userId: string, id: string, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .delete(webhookEndpoints)
        .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.userId, userId)))
        .returning({ id: webhookEndpoints.id });
      return rows.length === 1;
    },
    /** Adds the event for each endpoint that has not had it (by event key); the new deliveries' ids. */
    async insertDeliveries(
      rows: { endpointId: string; eventKey: string; type: string; payload: unknown }[],
      tx: DbOrTx = db,
    ): Promise<string[]> {
      if (rows.length === 0) return [];
      const inserted = await tx
        .insert(webhookDeliveries)
        .values(rows)
        .onConflictDoNothing({ target: [webhookDeliveries.endpointId, webhookDeliveries.eventKey] })
        .returning({ id: webhookDeliveries.id });
      return inserted.map((r) => r.id);
    },
    async findDelivery(id: string, tx: DbOrTx = db) {
      const rows = await tx
        .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints })
        .from(webhookDeliveries)
        .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
        .where(eq(webhookDeliveries.id, id));
      return rows[0];
    },
    /** Records one try; `status` moves on only from pending. */
    async recordAttempt(
      id: string,
      r: { status: 'pending' | 'delivered' | 'failed'; statusCode: number | null; error: string | null },
      tx: DbOrTx = db,
    ): Promise<void> {
      await tx
        .update(webhookDeliveries)
        .set({
          attempts: sql`${webhookDeliveries.attempts} + 1`,
          status: r.status,
          lastStatusCode: r.statusCode,
          lastError: r.error,
          lastAttemptAt: sql`now()`,
          ...(r.status === 'delivered' ? { deliveredAt: sql`now()` } : {}),
        })
        .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.status, 'pending')));
    },
    async listDeliveries(userId: string, limit: number, tx: DbOrTx = db): Promise<WebhookDeliveryRow[]> {
      const rows = await tx
        .select({ d: webhookDeliveries })
        .from(webhookDeliveries)
        .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
        .where(eq(webhookEndpoints.userId, userId))
        .orderBy(desc(webhookDeliveries.createdAt))
        .limit(limit);
      return rows.map((r) => r.d);
    },
    /** The customers with at least one endpoint (the only ones the scan's events are for). */
    async endpointUserIds(tx: DbOrTx = db): Promise<string[]> {
      const rows = await tx.selectDistinct({ userId: webhookEndpoints.userId }).from(webhookEndpoints);
      return rows.map((r) => r.userId);
    },
    async endpointsOf(userIds: string[], tx: DbOrTx = db): Promise<WebhookEndpointRow[]> {
      if (userIds.length === 0) return [];
      return tx.select().from(webhookEndpoints).where(inArray(webhookEndpoints.userId, userIds));
    },
  };
}
export type WebhooksRepository = ReturnType<typeof createWebhooksRepository>;
