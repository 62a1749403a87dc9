import { agents, type Db, type DbOrTx, leases, txrecords, webhookDeliveries, webhookEndpoints } from '@pm/db';
import { and, count, desc, eq, gt, inArray, isNull, lte, sql } from 'drizzle-orm';

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
    /**
     * Running leases that end within `withinMs` of `nowMs`, of customers with an endpoint (read-only
     * on `leases`; the event key makes each lease's warning once per end time).
     */
    async leasesEndingSoon(nowMs: number, withinMs: number, tx: DbOrTx = db) {
      return tx
        .select({ id: leases.id, userId: leases.userId, until: leases.until })
        .from(leases)
        .where(
          and(
            isNull(leases.endedAt),
            gt(leases.until, new Date(nowMs)),
            lte(leases.until, new Date(nowMs + withinMs)),
            inArray(leases.userId, tx.select({ u: webhookEndpoints.userId }).from(webhookEndpoints)),
          ),
        )
        .limit(1000);
    },
    /**
     * Running leases whose agent is offline and was last seen at or before `seenBeforeMs`, of
     * customers with an endpoint (read-only on `leases` and `agents`). `offlineSince` is the
     * agent's `last_seen` (its creation when never seen): fixed for one offline spell, so it names
     * the spell in the event key.
     */
    async leasesOnOfflineAgents(nowMs: number, seenBeforeMs: number, tx: DbOrTx = db) {
      const offlineSince = sql<Date>`coalesce(${agents.lastSeen}, ${agents.createdAt})`;
      return tx
        .select({ id: leases.id, userId: leases.userId, agentId: leases.agentId, offlineSince })
        .from(leases)
        .innerJoin(agents, eq(agents.id, leases.agentId))
        .where(
          and(
            isNull(leases.endedAt),
            gt(leases.until, new Date(nowMs)),
            eq(agents.online, false),
            lte(offlineSince, new Date(seenBeforeMs)),
            inArray(leases.userId, tx.select({ u: webhookEndpoints.userId }).from(webhookEndpoints)),
          ),
        )
        .limit(1000);
    },
    /** Leases that ended after `sinceMs`, of customers with an endpoint (read-only on `leases`). */
    async leasesEndedSince(sinceMs: number, tx: DbOrTx = db) {
      return tx
        .select({ id: leases.id, userId: leases.userId, endedAt: leases.endedAt, reason: leases.endReason })
        .from(leases)
        .where(
          and(
            gt(leases.endedAt, new Date(sinceMs)),
            inArray(leases.userId, tx.select({ u: webhookEndpoints.userId }).from(webhookEndpoints)),
          ),
        )
        .limit(1000);
    },
    /** Deposits credited after `sinceMs`, of customers with an endpoint (read-only on `txrecords`). */
    async depositsSince(sinceMs: number, tx: DbOrTx = db) {
      return tx
        .select({
          id: txrecords.id,
          userId: txrecords.userId,
          time: txrecords.time,
          amtC: txrecords.amtC,
          balC: txrecords.balC,
        })
        .from(txrecords)
        .where(
          and(
            eq(txrecords.type, 'deposit'),
            gt(txrecords.time, new Date(sinceMs)),
            inArray(txrecords.userId, tx.select({ u: webhookEndpoints.userId }).from(webhookEndpoints)),
          ),
        )
        .limit(1000);
    },
    async endpointsOf(userIds: string[], tx: DbOrTx = db): Promise<WebhookEndpointRow[]> {
      if (userIds.length === 0) return [];
      return tx.select().from(webhookEndpoints).where(inArray(webhookEndpoints.userId, userIds));
    },
  };
}
export type WebhooksRepository = ReturnType<typeof createWebhooksRepository>;
