/**
 * The reads of `leases` the leases module exposes to other modules, so that no other module reads the
 * table itself (docs/ARCHITECTURE.md, "Who reads another module's table"). The agents module is built
 * before this one (the sale path reserves through it), so it cannot ask the leases service: it calls
 * these counts, and the static shop filters with `noActiveLeaseOn`, a join written here. Modules
 * built after leases (webhooks) ask the leases service, which answers from the event reads below.
 */
import { ACTIVE_LEASE, agents, type Db, type DbOrTx, leases } from '@pm/db';
import { and, eq, gt, inArray, isNull, lte, ne, type SQL, sql } from 'drizzle-orm';

/** Active leases on one agent, by kind, and whether the buyer holds one of them. */
export interface ActiveLeaseCounts {
  shared: number;
  exclusive: number;
  heldByBuyer: boolean;
}

/** Per agent, the lapsed leases (past `until`, not ended yet) by kind. */
export type LapsedLeaseCounts = Map<string, { shared: number; exclusive: number }>;

/** Active at the caller's clock `nowMs`: the one rule, SQL `lease_active` (migration 0019). */
const activeAt = (nowMs: number) =>
  sql`lease_active(${leases.endedAt}, ${leases.until}, ${new Date(nowMs).toISOString()}::timestamptz)`;

/**
 * Whose leases a sale counts on an agent: `userId`'s (one customer, one active lease an agent),
 * leaving out `excludeLeaseId` (a renewal's own), active at `atMs`, the sale service's clock (so a
 * test moves time instead of waiting; the database's `now()` without it).
 */
export interface SaleWho {
  userId?: string | undefined;
  excludeLeaseId?: string | undefined;
  atMs?: number | undefined;
}

const activeFor = (who: SaleWho) => (who.atMs === undefined ? ACTIVE_LEASE : activeAt(who.atMs));

/** At most this many rows per event read; the event key makes a later scan pick up the rest. */
const EVENT_ROWS = 1000;

/**
 * SQL that holds when the agent (its id column or value) has no lease active at `atMs` (the
 * caller's clock, SQL `lease_active`): the static shop's "on sale" join.
 */
export function noActiveLeaseOn(agentId: SQL | typeof agents.id, atMs: number): SQL {
  // A count per candidate (a probe of leases_agent_active_idx each), not NOT EXISTS: the planner
  // turned that into an anti join over every running lease, 1.4 s among 260,000 for 5,900 agents.
  return sql`(SELECT count(*) FROM ${leases} WHERE ${leases.agentId} = ${agentId} AND ${activeAt(atMs)}) = 0`;
}

/**
 * SQL: the active leases (the one definition, `ACTIVE_LEASE`) on the agent `agentId` (its id column
 * or value) as `int[3]`: shared, exclusive, and how many `userId` holds; `excludeLeaseId` left out.
 * One scan of the agent's leases, for a read that wants the agent row and its counts in one round
 * trip (the sale's lock-free check); `toActiveLeaseCounts` reads it. Not for a row locked in the
 * same statement: a statement that waited for the lock would count under its older snapshot.
 */
export function activeLeaseCountsOn(agentId: SQL | typeof agents.id, who: SaleWho): SQL<number[] | null> {
  const mine = who.userId === undefined ? sql`false` : sql`${leases.userId} = ${who.userId}`;
  const other = who.excludeLeaseId === undefined ? sql`true` : sql`${leases.id} <> ${who.excludeLeaseId}`;
  return sql<
    number[] | null
  >`(SELECT ARRAY[count(*) FILTER (WHERE NOT ${leases.exc}), count(*) FILTER (WHERE ${leases.exc}), count(*) FILTER (WHERE ${mine})]::int[] FROM ${leases} WHERE ${leases.agentId} = ${agentId} AND ${activeFor(who)} AND ${other})`;
}

/** The counts of `activeLeaseCountsOn` as the sale's rule reads them. */
export function toActiveLeaseCounts(counts: readonly number[] | null): ActiveLeaseCounts {
  const [shared = 0, exclusive = 0, mine = 0] = counts ?? [];
  return { shared, exclusive, heldByBuyer: mine > 0 };
}

/** The exposed reads; every method takes the caller's `tx` last, as repositories do. */
export function createExposedLeaseReads(db: Db) {
  return {
    /**
     * Active leases on one agent, by kind, counted from the leases (a lapsed one no longer counts),
     * leaving out `excludeLeaseId`, and whether `userId` holds one of them (the sale's one rule).
     */
    async countActiveOn(agentId: string, who: SaleWho, tx: DbOrTx = db): Promise<ActiveLeaseCounts> {
      const mine = who.userId === undefined ? sql`false` : sql`${leases.userId} = ${who.userId}`;
      const rows = await tx
        .select({
          shared: sql<number>`count(*) FILTER (WHERE NOT ${leases.exc})::int`,
          exclusive: sql<number>`count(*) FILTER (WHERE ${leases.exc})::int`,
          heldByBuyer: sql<boolean>`coalesce(bool_or(${mine}), false)`,
        })
        .from(leases)
        .where(
          and(
            eq(leases.agentId, agentId),
            activeFor(who),
            who.excludeLeaseId === undefined ? undefined : ne(leases.id, who.excludeLeaseId),
          ),
        );
      return rows[0] ?? { shared: 0, exclusive: 0, heldByBuyer: false };
    },

    /**
     * Per agent (of `agentIds`, or all), the lapsed leases the `active_*` counters still hold: not
     * active at `atMs` (the caller's clock).
     */
    async findLapsedCounts(
      agentIds: string[] | undefined,
      atMs: number,
      tx: DbOrTx = db,
    ): Promise<LapsedLeaseCounts> {
      const at = new Date(atMs);
      if (agentIds?.length === 0) return new Map();
      const rows = await tx
        .select({
          agentId: leases.agentId,
          shared: sql<number>`count(*) FILTER (WHERE NOT ${leases.exc})::int`,
          exclusive: sql<number>`count(*) FILTER (WHERE ${leases.exc})::int`,
        })
        .from(leases)
        .where(
          and(
            // Not ended, and no longer active by the one rule (SQL `lease_active`).
            isNull(leases.endedAt),
            sql`NOT lease_active(${leases.endedAt}, ${leases.until}, ${at})`,
            // Implied by the two above; a range on leases_lapsed_idx instead of a scan of every
            // running lease (5 s among 260,000 on a loaded machine).
            sql`${leases.until} <= ${at}`,
            agentIds ? inArray(leases.agentId, agentIds) : undefined,
          ),
        )
        .groupBy(leases.agentId);
      // With the jobs down for long the shop corrects the first agents only: the rest stay hidden as
      // full, never oversold. Cut here: a LIMIT in the query made the planner walk every running
      // lease in agent order (7 s among 260,000) instead of the few lapsed ones.
      return new Map(
        rows.slice(0, 1000).map((r) => [r.agentId, { shared: r.shared, exclusive: r.exclusive }]),
      );
    },

    /**
     * The agents the user ever leased (of `agentIds`, or all), each with whether the user holds a
     * lease on it active at `atMs` (the caller's clock).
     */
    async findUserAgents(
      userId: string,
      agentIds: string[] | undefined,
      atMs: number,
      tx: DbOrTx = db,
    ): Promise<Map<string, boolean>> {
      if (agentIds?.length === 0) return new Map();
      const rows = await tx
        .select({ agentId: leases.agentId, holds: sql<boolean>`bool_or(${activeAt(atMs)})` })
        .from(leases)
        .where(and(eq(leases.userId, userId), agentIds ? inArray(leases.agentId, agentIds) : undefined))
        .groupBy(leases.agentId);
      return new Map(rows.map((r) => [r.agentId, r.holds]));
    },

    /** Running leases of `userIds` that end within `withinMs` of `nowMs`. */
    async findEndingSoon(nowMs: number, withinMs: number, userIds: string[], tx: DbOrTx = db) {
      if (userIds.length === 0) return [];
      return tx
        .select({ id: leases.id, userId: leases.userId, until: leases.until })
        .from(leases)
        .where(
          and(
            activeAt(nowMs),
            lte(leases.until, new Date(nowMs + withinMs)),
            inArray(leases.userId, userIds),
          ),
        )
        .limit(EVENT_ROWS);
    },

    /**
     * Running leases of `userIds` whose agent is offline and was last seen at or before
     * `seenBeforeMs`. `offlineSince` is the agent's `last_seen` (its creation when never seen):
     * fixed for one offline spell, so it can name the spell.
     */
    async findOnOfflineAgents(nowMs: number, seenBeforeMs: number, userIds: string[], tx: DbOrTx = db) {
      if (userIds.length === 0) return [];
      const offlineSince = sql<Date>`coalesce(${agents.lastSeen}, ${agents.createdAt})`;
      return tx
        .select({ id: leases.id, userId: leases.userId, agentId: leases.agentId, offlineSince })
        .from(leases)
        .innerJoin(agents, eq(agents.id, leases.agentId))
        .where(
          and(
            activeAt(nowMs),
            eq(agents.online, false),
            lte(offlineSince, new Date(seenBeforeMs)),
            inArray(leases.userId, userIds),
          ),
        )
        .limit(EVENT_ROWS);
    },

    /** Leases of `userIds` that ended after `sinceMs`, with their end reason. */
    async findEndedSince(sinceMs: number, userIds: string[], tx: DbOrTx = db) {
      if (userIds.length === 0) return [];
      return tx
        .select({ id: leases.id, userId: leases.userId, endedAt: leases.endedAt, reason: leases.endReason })
        .from(leases)
        .where(and(gt(leases.endedAt, new Date(sinceMs)), inArray(leases.userId, userIds)))
        .limit(EVENT_ROWS);
    },
  };
}

/** The exposed reads' functions. */
export type ExposedLeaseReads = ReturnType<typeof createExposedLeaseReads>;
