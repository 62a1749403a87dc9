import { MAX_SHARED_LEASES, type TConn } from '@pm/contracts';
// The clean score, lists and latest score the checks module keeps (packages/db/src/schema/checks.ts).
import {
  ACTIVE_LEASE,
  agentBlacklistIdsSql,
  agentBlacklists,
  agentCleanStarsSql,
  agentLatestScoreSql,
  agentPresence,
  agents,
  type Db,
  type DbOrTx,
  leases,
  SHOP_LISTED,
  type Tx,
} from '@pm/db';
import { type BoundingBox, EARTH_RADIUS_MI } from '@pm/geo';
import {
  and,
  asc,
  count,
  eq,
  getTableColumns,
  gte,
  inArray,
  isNull,
  lt,
  ne,
  or,
  type SQL,
  sql,
} from 'drizzle-orm';
import type { PgSelect } from 'drizzle-orm/pg-core';

export type AgentRow = typeof agents.$inferSelect;

/** The filters of the shop's list a segment list can ignore (each ignores its own). */
export const FACETS = ['reg', 'city', 'zip', 'isp'] as const;
export type Facet = (typeof FACETS)[number];

/** A shop query with its inputs resolved: the radius as a centre and box, the IP prefix as text. */
export interface ShopFilter {
  cc: string;
  reg?: string | undefined;
  city?: string | undefined;
  zip?: string | undefined;
  isp?: string | undefined;
  /** `198.51.` or `198.`: the address starts with it. */
  ipPrefix?: string | undefined;
  conn?: TConn | undefined;
  /** none: no active lease; some: active shared leases (and room, as every listed agent has). */
  leases?: 'none' | 'some' | undefined;
  /** true: not sold since `soldSince`; false: sold since then. */
  fresh?: boolean | undefined;
  soldSince: Date;
  minStars?: number | undefined;
  radius?: { lat: number; lon: number; miles: number; box: BoundingBox } | undefined;
  /** The lapsed leases the `active_*` counters still hold (`findLapsedCounts`); none when absent. */
  lapsed?: LapsedCounts | undefined;
}

/**
 * Per agent, the leases past `until` that `leases.expire` has not ended yet: the trigger's
 * `active_shared`/`active_exclusive` still count them, the one definition (ACTIVE_LEASE) does not.
 */
export type LapsedCounts = Map<string, { shared: number; exclusive: number }>;

/** An agent as the shop lists it: its row's shown columns, active leases (the trigger's counts) and current uptime start. */
export interface ShopRow {
  id: string;
  ip: string;
  host: string;
  cc: string;
  reg: string;
  city: string;
  zip: string;
  isp: string;
  mob: boolean;
  conn: TConn;
  dev: 'android' | 'other';
  stars: number;
  actv: number;
  probeActv: number;
  online: boolean;
  isStatic: boolean;
  nodeId: string | null;
  firstSeen: Date | null;
  lastSoldAt: Date | null;
  speedBps: number | null;
  speedCheckedAt: Date | null;
  activeShared: number;
  activeExclusive: number;
  /** Start of the open presence interval; null when the gateway recorded none. */
  onlineSince: Date | null;
  /** Blacklists of the current address (ignored lists dropped); empty before its first lookup. */
  blacklistIds: string[];
  /** The newest score check of the current address (`{ results, warnings, checkedAt }`), or null. */
  scoreCheck: unknown;
}

const shopColumns = {
  id: agents.id,
  ip: agents.ip,
  host: agents.host,
  cc: agents.cc,
  reg: agents.reg,
  city: agents.city,
  zip: agents.zip,
  isp: agents.isp,
  mob: agents.mob,
  conn: agents.conn,
  dev: agents.dev,
  // The clean score from the address's blacklists (checks module), else the row's seeded value.
  stars: agentCleanStarsSql,
  blacklistIds: agentBlacklistIdsSql,
  scoreCheck: agentLatestScoreSql,
  actv: agents.actv,
  probeActv: agents.probeActv,
  online: agents.online,
  isStatic: agents.isStatic,
  nodeId: agents.nodeId,
  firstSeen: agents.firstSeen,
  lastSoldAt: agents.lastSoldAt,
  speedBps: agents.speedBps,
  speedCheckedAt: agents.speedCheckedAt,
  activeShared: agents.activeShared,
  activeExclusive: agents.activeExclusive,
};

/** Active lease: the one definition (`@pm/db` ACTIVE_LEASE: not ended, `until` ahead). */
const isActiveLease = ACTIVE_LEASE;

/** A number parameter typed as double precision (PostgreSQL would infer integer beside `2 *`). */
const num = (x: number) => sql`${x}::float8`;

/** Great-circle miles from `c` to the agent: the haversine of `@pm/geo` in SQL, on the same Earth radius. */
function milesFrom(c: { lat: number; lon: number }): SQL {
  const [lat, lon] = [sql`radians(${agents.lat})`, sql`radians(${agents.lon})`];
  const [cLat, cLon] = [sql`radians(${num(c.lat)})`, sql`radians(${num(c.lon)})`];
  const h = sql`power(sin((${lat} - ${cLat}) / 2), 2) + cos(${cLat}) * cos(${lat}) * power(sin((${lon} - ${cLon}) / 2), 2)`;
  return sql`(2 * ${num(EARTH_RADIUS_MI)} * asin(sqrt(least(1, ${h}))))`;
}

/** The row with its counters less its lapsed leases (the live counts of the one definition). */
function liveRow(row: ShopRow, lapsed: LapsedCounts | undefined): ShopRow {
  const gone = lapsed?.get(row.id);
  if (!gone) return row;
  return {
    ...row,
    activeShared: row.activeShared - gone.shared,
    activeExclusive: row.activeExclusive - gone.exclusive,
  };
}

/**
 * With a stars filter, the address's blacklist result joined once (a hash join over the listed
 * agents) instead of looked up per row: a count of 100,000 agents with a stars filter took about
 * 3x longer through the per-row lookup.
 */
function withCleanScore<T extends PgSelect>(q: T, f: ShopFilter): T {
  if (f.minStars === undefined) return q;
  return q.leftJoin(
    agentBlacklists,
    and(eq(agentBlacklists.agentId, agents.id), eq(agentBlacklists.ip, agents.ip)),
  ) as unknown as T; // a dynamic query keeps its row type; the join only adds a condition's table
}

/** The listed agents, their active leases, the caller's leases and the country totals; the only Drizzle user of the shop. */
export function createAgentsRepository(db: Db) {
  // The partial indexes' predicate in its words (no parameters), so the planner can use them.
  const onSale = sql`${SHOP_LISTED}`;

  /**
   * The counters less the lapsed leases: with none lapsed (the usual case) the columns themselves,
   * so the partial indexes' predicate still matches; else a CASE over the few lapsed agents.
   */
  function liveCounts(lapsed: LapsedCounts | undefined): { shared: SQL; exclusive: SQL } | undefined {
    if (!lapsed || lapsed.size === 0) return undefined;
    const less = (kind: 'shared' | 'exclusive') =>
      sql`CASE ${agents.id} ${sql.join(
        [...lapsed].map(([id, c]) => sql`WHEN ${id} THEN ${c[kind]}::int`),
        sql` `,
      )} ELSE 0 END`;
    return {
      shared: sql`(${agents.activeShared} - ${less('shared')})`,
      exclusive: sql`(${agents.activeExclusive} - ${less('exclusive')})`,
    };
  }

  /**
   * On sale under the one definition of active: the counters' listing (SHOP_LISTED: their counts
   * are never below the live ones) or, for an agent holding lapsed leases, the live counts.
   */
  function listed(lapsed: LapsedCounts | undefined): SQL {
    const live = liveCounts(lapsed);
    if (!live) return onSale;
    return or(
      onSale,
      and(
        inArray(agents.id, [...lapsed!.keys()]),
        sql`${agents.online} AND NOT ${agents.isStatic} AND ${agents.nodeId} IS NOT NULL`,
        sql`${live.exclusive} = 0 AND ${live.shared} < ${MAX_SHARED_LEASES}`,
      ),
    )!;
  }

  function conditions(f: ShopFilter, omit?: Facet): SQL | undefined {
    const r = f.radius;
    const shared = liveCounts(f.lapsed)?.shared ?? agents.activeShared;
    return and(
      eq(agents.cc, f.cc),
      listed(f.lapsed),
      f.reg !== undefined && omit !== 'reg' ? eq(agents.reg, f.reg) : undefined,
      f.city !== undefined && omit !== 'city' ? eq(agents.city, f.city) : undefined,
      f.zip !== undefined && omit !== 'zip' ? eq(agents.zip, f.zip) : undefined,
      f.isp !== undefined && omit !== 'isp' ? eq(agents.isp, f.isp) : undefined,
      // The prefix is digits and dots only (built from two bounded integers), so it needs no escaping.
      f.ipPrefix !== undefined ? sql`${agents.ip} LIKE ${`${f.ipPrefix}%`}` : undefined,
      f.conn !== undefined ? eq(agents.conn, f.conn) : undefined,
      f.leases === 'none' ? sql`${shared} = 0` : f.leases === 'some' ? sql`${shared} > 0` : undefined,
      f.fresh === true ? or(isNull(agents.lastSoldAt), lt(agents.lastSoldAt, f.soldSince)) : undefined,
      f.fresh === false ? gte(agents.lastSoldAt, f.soldSince) : undefined,
      // Needs the blacklist join of withCleanScore (the same rule as agentCleanStarsSql).
      f.minStars !== undefined
        ? sql`coalesce(${agentBlacklists.stars}, ${agents.stars}) >= ${f.minStars}`
        : undefined,
      r ? sql`${agents.lat} BETWEEN ${num(r.box.minLat)} AND ${num(r.box.maxLat)}` : undefined,
      r ? sql`${agents.lon} BETWEEN ${num(r.box.minLon)} AND ${num(r.box.maxLon)}` : undefined,
      r ? sql`${milesFrom(r)} <= ${num(r.miles)}` : undefined,
    );
  }

  async function countActiveLeases(
    agentId: string,
    who: { userId?: string | undefined; excludeLeaseId?: string | undefined },
    tx: DbOrTx,
  ): Promise<{ shared: number; exclusive: number; heldByBuyer: boolean }> {
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
          isActiveLease,
          who.excludeLeaseId === undefined ? undefined : ne(leases.id, who.excludeLeaseId),
        ),
      );
    return rows[0] ?? { shared: 0, exclusive: 0, heldByBuyer: false };
  }

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

  async function findLapsedCounts(agentIds: string[] | undefined, tx: DbOrTx): Promise<LapsedCounts> {
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
          isNull(leases.endedAt),
          sql`${leases.until} <= now()`,
          agentIds ? inArray(leases.agentId, agentIds) : undefined,
        ),
      )
      .groupBy(leases.agentId)
      // With the jobs down for long the shop corrects the first agents only: the rest stay hidden as full, never oversold.
      .limit(1000);
    return new Map(rows.map((r) => [r.agentId, { shared: r.shared, exclusive: r.exclusive }]));
  }

  return {
    /** Per agent, the lapsed leases not ended yet (the counters still hold them); usually none. */
    async findLapsedCounts(tx: DbOrTx = db): Promise<LapsedCounts> {
      return findLapsedCounts(undefined, tx);
    },

    /** One page of the listed agents, most active first, then by id. */
    async findPage(
      f: ShopFilter,
      page: { offset: number; limit: number },
      tx: DbOrTx = db,
    ): Promise<ShopRow[]> {
      const rows = await withCleanScore(tx.select(shopColumns).from(agents).$dynamic(), f)
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
      const rows = await withCleanScore(tx.select({ n: count() }).from(agents).$dynamic(), f).where(
        conditions(f),
      );
      return Number(rows[0]?.n ?? 0);
    },

    /**
     * The distinct non-empty values of one column over the listed agents, ignoring that column's
     * own filter, in the database's collation order (sorting thousands of zips in the API process
     * would hold its event loop).
     */
    async findFacetValues(f: ShopFilter, facet: Facet, tx: DbOrTx = db): Promise<string[]> {
      const column = agents[facet];
      const rows = await withCleanScore(tx.selectDistinct({ v: column }).from(agents).$dynamic(), f)
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

    /** One agent as the shop shows it (listed or not); undefined when there is no such row. */
    async findShopRow(id: string, tx: DbOrTx = db): Promise<ShopRow | undefined> {
      const rows = await tx.select(shopColumns).from(agents).where(eq(agents.id, id));
      const row = rows[0];
      if (!row) return undefined;
      const since = await findOnlineSince([id], tx);
      const lapsed = await findLapsedCounts([id], tx);
      return liveRow({ ...row, onlineSince: since.get(id) ?? null }, lapsed);
    },

    /**
     * Active leases on one agent, by kind, counted from the leases (a lapsed one no longer counts),
     * leaving out `excludeLeaseId`, and whether `userId` holds one of them.
     */
    async countActiveLeases(
      agentId: string,
      who: { userId?: string | undefined; excludeLeaseId?: string | undefined } = {},
      tx: DbOrTx = db,
    ): Promise<{ shared: number; exclusive: number; heldByBuyer: boolean }> {
      return countActiveLeases(agentId, who, tx);
    },

    /** The agent row without a lock (the sale's fast refusal). */
    async findAgent(agentId: string, tx: DbOrTx = db): Promise<AgentRow | undefined> {
      const rows = await tx
        .select({ ...getTableColumns(agents), stars: agentCleanStarsSql })
        .from(agents)
        .where(eq(agents.id, agentId));
      return rows[0];
    },

    /** Every agent the user ever leased, each with whether the user holds an active lease on it now. */
    async findUserLeasedAgents(userId: string, tx: DbOrTx = db): Promise<Map<string, boolean>> {
      const rows = await tx
        .select({ agentId: leases.agentId, holds: sql<boolean>`bool_or(${isActiveLease})` })
        .from(leases)
        .where(eq(leases.userId, userId))
        .groupBy(leases.agentId);
      return new Map(rows.map((r) => [r.agentId, r.holds]));
    },

    /** Of `agentIds`, those the user ever leased, each with whether the user holds an active lease now. */
    async findUserLeases(userId: string, agentIds: string[], tx: DbOrTx = db): Promise<Map<string, boolean>> {
      if (agentIds.length === 0) return new Map();
      const rows = await tx
        .select({ agentId: leases.agentId, holds: sql<boolean>`bool_or(${isActiveLease})` })
        .from(leases)
        .where(and(eq(leases.userId, userId), inArray(leases.agentId, agentIds)))
        .groupBy(leases.agentId);
      return new Map(rows.map((r) => [r.agentId, r.holds]));
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
