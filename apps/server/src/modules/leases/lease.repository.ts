import { agents, type DbOrTx, gatewayNodes, leases } from '@pm/db';
import { and, eq, isNull, sql } from 'drizzle-orm';

export type LeaseRow = typeof leases.$inferSelect;
export type NewLeaseRow = typeof leases.$inferInsert;
export type AgentRow = typeof agents.$inferSelect;
export type NodeRow = typeof gatewayNodes.$inferSelect;

/** A lease with the node that serves it (null before the agent ever connected). */
export interface LeaseWithNode {
  lease: LeaseRow;
  node: NodeRow | null;
}

/** Active on an agent: not ended and not past its end time. */
const isActive = sql`${leases.endedAt} IS NULL AND ${leases.until} > now()`;

/** Data access for leases and the agent/node rows a lease needs. The only Drizzle user of the module. */
export const leaseRepository = {
  /** Locks the agent row (FOR UPDATE) so concurrent purchases of one agent serialise. */
  async lockAgent(tx: DbOrTx, agentId: string): Promise<AgentRow | undefined> {
    const rows = await tx.select().from(agents).where(eq(agents.id, agentId)).for('update');
    return rows[0];
  },

  /** Active leases on an agent, split by kind. */
  async countActiveOnAgent(tx: DbOrTx, agentId: string): Promise<{ shared: number; exclusive: number }> {
    const rows = await tx
      .select({
        shared: sql<number>`count(*) FILTER (WHERE NOT ${leases.exc})::int`,
        exclusive: sql<number>`count(*) FILTER (WHERE ${leases.exc})::int`,
      })
      .from(leases)
      .where(and(eq(leases.agentId, agentId), isActive));
    return rows[0] ?? { shared: 0, exclusive: 0 };
  },

  async insert(tx: DbOrTx, row: NewLeaseRow): Promise<LeaseRow> {
    const rows = await tx.insert(leases).values(row).returning();
    return rows[0]!;
  },

  async findWithNode(db: DbOrTx, id: string): Promise<LeaseWithNode | undefined> {
    const rows = await db
      .select({ lease: leases, node: gatewayNodes })
      .from(leases)
      .leftJoin(gatewayNodes, eq(gatewayNodes.id, leases.nodeId))
      .where(eq(leases.id, id));
    return rows[0];
  },

  async findNode(db: DbOrTx, nodeId: string): Promise<NodeRow | undefined> {
    const rows = await db.select().from(gatewayNodes).where(eq(gatewayNodes.id, nodeId));
    return rows[0];
  },

  async findAgent(db: DbOrTx, agentId: string): Promise<AgentRow | undefined> {
    const rows = await db.select().from(agents).where(eq(agents.id, agentId));
    return rows[0];
  },

  /** Marks a lease ended (and refunded when `refund` is given); false when it had already ended. */
  async markEnded(db: DbOrTx, id: string, refund?: { amountC: number }): Promise<LeaseRow | undefined> {
    const rows = await db
      .update(leases)
      .set({
        endedAt: sql`now()`,
        ...(refund ? { refundedAt: sql`now()`, refundAmountC: refund.amountC } : {}),
      })
      .where(and(eq(leases.id, id), isNull(leases.endedAt)))
      .returning();
    return rows[0];
  },

  async lockLease(tx: DbOrTx, id: string): Promise<LeaseRow | undefined> {
    const rows = await tx.select().from(leases).where(eq(leases.id, id)).for('update');
    return rows[0];
  },

  /** Locks the node row so no-auth port allocation on one node is serialised. */
  async lockNode(tx: DbOrTx, nodeId: string): Promise<NodeRow | undefined> {
    const rows = await tx.select().from(gatewayNodes).where(eq(gatewayNodes.id, nodeId)).for('update');
    return rows[0];
  },

  /** Lowest port in the node's range not held by a lease that has not ended; undefined when full. */
  async findFreeAuthPort(tx: DbOrTx, node: NodeRow): Promise<number | undefined> {
    const rows = await tx.execute<{ port: number }>(sql`
      SELECT p AS port FROM generate_series(${node.authPortMin}::int, ${node.authPortMax}::int) AS p
      WHERE NOT EXISTS (
        SELECT 1 FROM ${leases}
        WHERE ${leases.nodeId} = ${node.id} AND ${leases.authPort} = p AND ${leases.endedAt} IS NULL
      )
      ORDER BY p LIMIT 1`);
    const list =
      (rows as unknown as { rows?: { port: number }[] }).rows ?? (rows as unknown as { port: number }[]);
    return list[0]?.port;
  },

  async setAuthPort(
    tx: DbOrTx,
    id: string,
    values: { nodeId: string; authPort: number; whitelist: string[] },
  ): Promise<LeaseRow> {
    const rows = await tx.update(leases).set(values).where(eq(leases.id, id)).returning();
    return rows[0]!;
  },

  async setWhitelist(db: DbOrTx, id: string, whitelist: string[]): Promise<LeaseRow | undefined> {
    const rows = await db.update(leases).set({ whitelist }).where(eq(leases.id, id)).returning();
    return rows[0];
  },
};
