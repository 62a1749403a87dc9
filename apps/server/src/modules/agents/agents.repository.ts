// The agent rows of the shop and the sale; the shop's filter itself is in agents.filter.repository.ts.
import { agentCleanStarsSql, agentPresence, agents, type Db, type DbOrTx, type Tx } from '@pm/db';
import { and, asc, count, eq, getTableColumns, inArray, isNull, ne, sql } from 'drizzle-orm';
import {
  type ActiveLeaseCounts,
  activeLeaseCountsOn,
  createExposedLeaseReads,
  type SaleWho,
  toActiveLeaseCounts,
} from '../leases/leases.exposed.repository.ts';
import {
  conditions,
  type Facet,
  type LapsedCounts,
  listed,
  liveRow,
  type ShopFilter,
  type ShopRow,
  shopColumns,
} from './agents.filter.repository.ts';

export type AgentRow = typeof agents.$inferSelect;

/**
 * The listed agents, their active leases, the caller's leases and the country totals; the only Drizzle
 * user of the shop. Leases are counted by the leases module's exposed reads, never read here.
 */
export function createAgentsRepository(db: Db) {
  const leaseReads = createExposedLeaseReads(db);

  async function findOnlineSince(ids: string[], tx: DbOrTx): Promise<Map<string, Date>> {
    if (ids.length === 0) return new Map();
    const rows = await tx
      .select({
        agentId: agentPresence.agentId,
        since: sql<Date>`max(${agentPresence.startedAt})`.mapWith(agentPresence.startedAt),
      })
      .from(agentPresence)
      .where(and(inArray(agentPresence.agentId, ids), isNull(agentPresence.endedAt)))
      .groupBy(agentPresence.agentId);
    return new Map(rows.map((r) => [r.agentId, r.since]));
  }

  const findLapsedCounts = (
    agentIds: string[] | undefined,
    atMs: number,
    tx: DbOrTx,
  ): Promise<LapsedCounts> => leaseReads.findLapsedCounts(agentIds, atMs, tx);

  return {
    /** Start of each agent's open presence interval (its Uptime); agents offline are missing. */
    async findOnlineSince(ids: string[], tx: DbOrTx = db): Promise<Map<string, Date>> {
      return findOnlineSince(ids, tx);
    },

    /** Per agent, the leases lapsed at `atMs` not ended yet (the counters still hold them); usually none. */
    async findLapsedCounts(atMs: number, tx: DbOrTx = db): Promise<LapsedCounts> {
      return findLapsedCounts(undefined, atMs, tx);
    },

    /** One page of the listed agents, most active first, then by id. */
    async findPage(
      f: ShopFilter,
      page: { offset: number; limit: number },
      tx: DbOrTx = db,
    ): Promise<ShopRow[]> {
      const rows = await tx
        .select(shopColumns)
        .from(agents)
        .where(conditions(f))
        .orderBy(sql`${agents.actv} DESC NULLS LAST`, asc(agents.id))
        .offset(page.offset)
        .limit(page.limit);
      const since = await findOnlineSince(
        rows.map((r) => r.id),
        tx,
      );
      return rows.map((r) => liveRow({ ...r, onlineSince: since.get(r.id) ?? null }, f.lapsed));
    },

    /** How many agents the filter lists. */
    async countListed(f: ShopFilter, tx: DbOrTx = db): Promise<number> {
      const rows = await tx.select({ n: count() }).from(agents).where(conditions(f));
      return Number(rows[0]?.n ?? 0);
    },

    /**
     * The distinct non-empty values of one column over the listed agents, ignoring that column's
     * own filter, in the database's collation order (sorting thousands of zips in the API process
     * would hold its event loop).
     */
    async findFacetValues(f: ShopFilter, facet: Facet, tx: DbOrTx = db): Promise<string[]> {
      const column = agents[facet];
      const rows = await tx
        .selectDistinct({ v: column })
        .from(agents)
        .where(and(conditions(f, facet), ne(column, '')))
        .orderBy(column);
      return rows.map((r) => r.v);
    },

    /** Agents on sale per country code. */
    async countListedByCountry(lapsed?: LapsedCounts, tx: DbOrTx = db): Promise<{ cc: string; n: number }[]> {
      const rows = await tx
        .select({ cc: agents.cc, n: count() })
        .from(agents)
        .where(and(ne(agents.cc, ''), listed(lapsed)))
        .groupBy(agents.cc);
      return rows.map((r) => ({ cc: r.cc, n: Number(r.n) }));
    },

    /** One agent as the shop shows it at `atMs` (listed or not); undefined when there is no such row. */
    async findShopRow(id: string, atMs: number, tx: DbOrTx = db): Promise<ShopRow | undefined> {
      // Three reads at once (one wait): the row, its open presence interval, its lapsed leases.
      const [rows, since, lapsed] = await Promise.all([
        tx.select(shopColumns).from(agents).where(eq(agents.id, id)),
        findOnlineSince([id], tx),
        findLapsedCounts([id], atMs, tx),
      ]);
      const row = rows[0];
      if (!row) return undefined;
      return liveRow({ ...row, onlineSince: since.get(id) ?? null }, lapsed);
    },

    /**
     * Active leases on one agent, by kind, counted from the leases (a lapsed one no longer counts),
     * leaving out `excludeLeaseId`, and whether `userId` holds one of them.
     */
    async countActiveLeases(agentId: string, who: SaleWho = {}, tx: DbOrTx = db): Promise<ActiveLeaseCounts> {
      return leaseReads.countActiveOn(agentId, who, tx);
    },

    /**
     * The agent row without a lock and its active leases (as `countActiveLeases`) in one round trip:
     * the sale's lock-free check. Undefined agent when there is no such row.
     */
    async findAgentWithLeases(
      agentId: string,
      who: SaleWho,
      tx: DbOrTx = db,
    ): Promise<{ agent: AgentRow | undefined; active: ActiveLeaseCounts }> {
      const rows = await tx
        .select({
          ...getTableColumns(agents),
          stars: agentCleanStarsSql,
          activeCounts: activeLeaseCountsOn(sql.raw('"agents"."id"'), who),
        })
        .from(agents)
        .where(eq(agents.id, agentId));
      const row = rows[0];
      if (!row) return { agent: undefined, active: toActiveLeaseCounts(null) };
      const { activeCounts, ...agent } = row;
      return { agent, active: toActiveLeaseCounts(activeCounts) };
    },

    /** Every agent the user ever leased, each with whether the user holds a lease on it active at `atMs`. */
    async findUserLeasedAgents(userId: string, atMs: number, tx: DbOrTx = db): Promise<Map<string, boolean>> {
      return leaseReads.findUserAgents(userId, undefined, atMs, tx);
    },

    /** Locks the agent row (SELECT … FOR UPDATE) so purchases of one agent take turns. */
    async lockAgent(agentId: string, tx: Tx): Promise<AgentRow | undefined> {
      // Priced on the clean score the shop shows, so the sale's quote matches the page.
      const rows = await tx
        .select({ ...getTableColumns(agents), stars: agentCleanStarsSql })
        .from(agents)
        .where(eq(agents.id, agentId))
        .for('update');
      return rows[0];
    },

    /** Records a sale of the agent at `at` (it is no longer New for 30 days). */
    async setLastSold(agentId: string, at: Date, tx: DbOrTx = db): Promise<void> {
      await tx.update(agents).set({ lastSoldAt: at }).where(eq(agents.id, agentId));
    },
  };
}

/** The agents repository's functions. */
export type AgentsRepository = ReturnType<typeof createAgentsRepository>;
