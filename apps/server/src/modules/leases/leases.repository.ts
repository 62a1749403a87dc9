import {
  agentBlacklistIdsSql,
  agentCleanStarsSql,
  agentNotes,
  agents,
  type Db,
  type DbOrTx,
  gatewayNodes,
  leases,
  type Tx,
} from '@pm/db';
import { and, desc, eq, getTableColumns, inArray, isNull, sql } from 'drizzle-orm';

export type LeaseRow = typeof leases.$inferSelect;
export type NewLeaseRow = typeof leases.$inferInsert;
/** The agent row with the checks' clean score as `stars` and the blacklists of its current address. */
export type AgentRow = typeof agents.$inferSelect & { blacklistIds?: string[] };
export type NodeRow = typeof gatewayNodes.$inferSelect;

/** The agent as a lease shows it: the clean score and blacklists the checks module keeps. */
const agentWithChecks = {
  ...getTableColumns(agents),
  stars: agentCleanStarsSql,
  blacklistIds: agentBlacklistIdsSql,
};

/** A lease with the node that serves it (null only if the lease was stored without one). */
export interface LeaseWithNode {
  lease: LeaseRow;
  node: NodeRow | null;
}

/** Active at the service's clock `at` (SQL `lease_active`): reads move with the service's time, not the database's. */
const isActiveAt = (at: Date) =>
  sql`lease_active(${leases.endedAt}, ${leases.until}, ${at.toISOString()}::timestamptz)`;

/**
 * Data access for leases and the agent and node rows a lease needs; the only Drizzle user of the
 * module. Every method takes the caller's `tx` last; `lock*` methods require one (a row lock
 * outside a transaction would be released at once).
 */
export function createLeaseRepository(db: Db) {
  return {
    /** Leases on an agent active at `at`, split by kind. */
    async countActiveOnAgent(
      agentId: string,
      at: Date,
      tx: DbOrTx = db,
    ): Promise<{ shared: number; exclusive: number }> {
      const rows = await tx
        .select({
          shared: sql<number>`count(*) FILTER (WHERE NOT ${leases.exc})::int`,
          exclusive: sql<number>`count(*) FILTER (WHERE ${leases.exc})::int`,
        })
        .from(leases)
        .where(and(eq(leases.agentId, agentId), isActiveAt(at)));
      return rows[0] ?? { shared: 0, exclusive: 0 };
    },

    async insert(row: NewLeaseRow, tx: DbOrTx = db): Promise<LeaseRow> {
      const rows = await tx.insert(leases).values(row).returning();
      return rows[0]!;
    },

    async findWithNode(id: string, tx: DbOrTx = db): Promise<LeaseWithNode | undefined> {
      const rows = await tx
        .select({ lease: leases, node: gatewayNodes })
        .from(leases)
        .leftJoin(gatewayNodes, eq(gatewayNodes.id, leases.nodeId))
        .where(eq(leases.id, id));
      return rows[0];
    },

    /**
     * A page of the user's active leases at `now` (not ended, `until` after it), newest first, with
     * their node and agent rows; one more row than `limit` tells the caller another page exists.
     */
    async findActivePageOfUser(
      userId: string,
      page: { now: Date; offset: number; limit: number },
      tx: DbOrTx = db,
    ): Promise<(LeaseWithNode & { agent: AgentRow })[]> {
      return tx
        .select({ lease: leases, node: gatewayNodes, agent: agentWithChecks })
        .from(leases)
        .innerJoin(agents, eq(agents.id, leases.agentId))
        .leftJoin(gatewayNodes, eq(gatewayNodes.id, leases.nodeId))
        .where(and(eq(leases.userId, userId), isActiveAt(page.now)))
        .orderBy(desc(leases.start), desc(leases.id))
        .offset(page.offset)
        .limit(page.limit + 1);
    },

    /** Leases active at `at` (shared and private together) on each of `agentIds`. */
    async countActiveByAgents(agentIds: string[], at: Date, tx: DbOrTx = db): Promise<Map<string, number>> {
      if (agentIds.length === 0) return new Map();
      const rows = await tx
        .select({ agentId: leases.agentId, n: sql<number>`count(*)::int` })
        .from(leases)
        .where(and(inArray(leases.agentId, agentIds), isActiveAt(at)))
        .groupBy(leases.agentId);
      return new Map(rows.map((r) => [r.agentId, r.n]));
    },

    /** The user's notes on each of `agentIds` that has one. */
    async findNotes(userId: string, agentIds: string[], tx: DbOrTx = db): Promise<Map<string, string>> {
      if (agentIds.length === 0) return new Map();
      const rows = await tx
        .select({ agentId: agentNotes.agentId, note: agentNotes.note })
        .from(agentNotes)
        .where(and(eq(agentNotes.userId, userId), inArray(agentNotes.agentId, agentIds)));
      return new Map(rows.map((r) => [r.agentId, r.note]));
    },

    /** Whether the user holds or ever held a lease on the agent. */
    async hasLeased(userId: string, agentId: string, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .select({ id: leases.id })
        .from(leases)
        .where(and(eq(leases.userId, userId), eq(leases.agentId, agentId)))
        .limit(1);
      return rows.length > 0;
    },

    /** Sets the user's note on an agent (insert or replace). */
    async upsertNote(userId: string, agentId: string, note: string, tx: DbOrTx = db): Promise<void> {
      await tx
        .insert(agentNotes)
        .values({ userId, agentId, note })
        .onConflictDoUpdate({
          target: [agentNotes.userId, agentNotes.agentId],
          set: { note, updatedAt: sql`now()` },
        });
    },

    async deleteNote(userId: string, agentId: string, tx: DbOrTx = db): Promise<void> {
      await tx.delete(agentNotes).where(and(eq(agentNotes.userId, userId), eq(agentNotes.agentId, agentId)));
    },

    /** Sets auto-renew on a lease of the user that has not ended; undefined when there is none. */
    async setAutoRenew(
      userId: string,
      id: string,
      autoRenew: boolean,
      tx: DbOrTx = db,
    ): Promise<LeaseRow | undefined> {
      const rows = await tx
        .update(leases)
        .set({ autoRenew })
        .where(and(eq(leases.id, id), eq(leases.userId, userId), isNull(leases.endedAt)))
        .returning();
      return rows[0];
    },

    /** The user's note on an agent, '' when none. */
    async findNote(userId: string, agentId: string, tx: DbOrTx = db): Promise<string> {
      const rows = await tx
        .select({ note: agentNotes.note })
        .from(agentNotes)
        .where(and(eq(agentNotes.userId, userId), eq(agentNotes.agentId, agentId)));
      return rows[0]?.note ?? '';
    },

    async findAgent(agentId: string, tx: DbOrTx = db): Promise<AgentRow | undefined> {
      const rows = await tx.select(agentWithChecks).from(agents).where(eq(agents.id, agentId));
      return rows[0];
    },

    /** Marks a lease ended now by staff; undefined when it had already ended. */
    async markEnded(id: string, tx: DbOrTx = db): Promise<LeaseRow | undefined> {
      const rows = await tx
        .update(leases)
        .set({ endedAt: sql`now()`, endReason: 'staffEnded' })
        .where(and(eq(leases.id, id), isNull(leases.endedAt)))
        .returning();
      return rows[0];
    },

    async lockLease(id: string, tx: Tx): Promise<LeaseRow | undefined> {
      const rows = await tx.select().from(leases).where(eq(leases.id, id)).for('update');
      return rows[0];
    },

    /** Locks the node row so no-auth port allocation on one node is serialised. */
    async lockNode(nodeId: string, tx: Tx): Promise<NodeRow | undefined> {
      const rows = await tx.select().from(gatewayNodes).where(eq(gatewayNodes.id, nodeId)).for('update');
      return rows[0];
    },

    /** Lowest port in the node's range not held by a lease that has not ended; undefined when full. */
    async findFreeAuthPort(node: NodeRow, tx: DbOrTx = db): Promise<number | undefined> {
      const rows = await tx.execute<{ port: number }>(sql`
        SELECT p AS port FROM generate_series(${node.authPortMin}::int, ${node.authPortMax}::int) AS p
        WHERE NOT EXISTS (
          SELECT 1 FROM ${leases}
          WHERE ${leases.nodeId} = ${node.id} AND ${leases.authPort} = p AND ${leases.endedAt} IS NULL
        )
        ORDER BY p LIMIT 1`);
      // node-postgres answers { rows }, PGlite an array.
      const list =
        (rows as unknown as { rows?: { port: number }[] }).rows ?? (rows as unknown as { port: number }[]);
      return list[0]?.port;
    },

    async setAuthPort(
      id: string,
      values: { nodeId: string; authPort: number; whitelist: string[] },
      tx: DbOrTx = db,
    ): Promise<LeaseRow> {
      const rows = await tx.update(leases).set(values).where(eq(leases.id, id)).returning();
      return rows[0]!;
    },

    async setWhitelist(id: string, whitelist: string[], tx: DbOrTx = db): Promise<LeaseRow | undefined> {
      const rows = await tx.update(leases).set({ whitelist }).where(eq(leases.id, id)).returning();
      return rows[0];
    },
  };
}

/** The lease repository's functions. */
export type LeaseRepository = ReturnType<typeof createLeaseRepository>;
