import { MAX_SHARED_LEASES, type TConn } from '@pm/contracts';
// The clean score, lists and latest score the checks module keeps (packages/db/src/schema/checks.ts).
import { agentBlacklistIdsSql, agentCleanStarsSql, agentLatestScoreSql, agents, SHOP_LISTED } from '@pm/db';
import { type BoundingBox, EARTH_RADIUS_MI } from '@pm/geo';
import { and, eq, gte, inArray, isNull, lt, or, type SQL, sql } from 'drizzle-orm';

// The shop's filter in SQL: what a listed agent is and which rows a query keeps. Part of the agents
// repository (Drizzle stays in *.repository.ts); the queries that run it are in agents.repository.ts.

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

/** The columns the shop selects for a `ShopRow` (all but `onlineSince`). */
export const shopColumns = {
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
export function liveRow(row: ShopRow, lapsed: LapsedCounts | undefined): ShopRow {
  const gone = lapsed?.get(row.id);
  if (!gone) return row;
  return {
    ...row,
    activeShared: row.activeShared - gone.shared,
    activeExclusive: row.activeExclusive - gone.exclusive,
  };
}

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
export function listed(lapsed: LapsedCounts | undefined): SQL {
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

/** The WHERE of the shop's list under `f`, leaving out the `omit` facet's own filter. */
export function conditions(f: ShopFilter, omit?: Facet): SQL | undefined {
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
    // The clean score on the row (agentCleanStarsSql): with 1,000,000 agents the join to
    // agent_blacklists it replaced made a count 10x slower than without the filter.
    f.minStars !== undefined ? gte(agents.cleanStars, f.minStars) : undefined,
    r ? sql`${agents.lat} BETWEEN ${num(r.box.minLat)} AND ${num(r.box.maxLat)}` : undefined,
    r ? sql`${agents.lon} BETWEEN ${num(r.box.minLon)} AND ${num(r.box.maxLon)}` : undefined,
    r ? sql`${milesFrom(r)} <= ${num(r.miles)}` : undefined,
  );
}
