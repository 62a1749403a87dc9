import { type Cents, cents } from '@pm/money';
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { MONEY_BOUND_SQL } from './bounds.ts';

/**
 * The proxy network: gateway nodes, the agents that dial them, presence and probe history,
 * and leases. Every change to a lease that the gateway cares about (credentials, whitelist,
 * no-auth port, end) raises `pg_notify('lease_changed', <lease id>)` from a trigger (see the
 * custom migration `network_notify`), so gateways reload within a second.
 */

/** One gateway process (node). Agents dial a node; a lease's SOCKS address is its agent's node. */
export const gatewayNodes = pgTable('gateway_nodes', {
  id: text('id').primaryKey(),
  /** Host name customers connect to (lease `socks.host`). */
  publicHost: text('public_host').notNull(),
  /** Address customers connect to (lease `socks.ip`, `authPort.node`). */
  publicIp: text('public_ip').notNull(),
  /** SOCKS base port: the node listens on base + 2080, 3080, 4080 and 5080. */
  socksBasePort: integer('socks_base_port').notNull(),
  /** Inclusive range the no-auth ports of this node's leases are allocated from. */
  authPortMin: integer('auth_port_min').notNull().default(20000),
  authPortMax: integer('auth_port_max').notNull().default(29999),
  /** Inclusive range the node's package ports are allocated from (the node's own setting, written at start). */
  packagePortMin: integer('package_port_min').notNull().default(30000),
  packagePortMax: integer('package_port_max').notNull().default(39999),
  /** A package port's HTTP proxy twin listens on port + this offset (0: no twins). */
  packageHttpOffset: integer('package_http_offset').notNull().default(10000),
  lastHeartbeat: timestamp('last_heartbeat', { withTimezone: true }).notNull().defaultNow(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The agents the shop lists (on sale): online, not static, with a node, no private lease and fewer
 * than 4 shared ones. The shop's queries state this predicate in these words so the partial
 * indexes below apply.
 */
export const SHOP_LISTED = sql.raw(
  'online AND NOT is_static AND node_id IS NOT NULL AND active_exclusive = 0 AND active_shared < 4',
);

/** An exit agent (the "proxy" the shop sells). Location and presence columns are kept by the gateway. */
export const agents = pgTable(
  'agents',
  {
    id: text('id').primaryKey(),
    /** sha256 (hex) of the agent's high-entropy key; the key itself is never stored. */
    keyHash: text('key_hash').notNull(),
    /** The node the agent dialed last; leases on it are served there. */
    nodeId: text('node_id').references(() => gatewayNodes.id),
    /** Observed public IP (or the devnet's synthetic identity). */
    ip: text('ip').notNull().default(''),
    /** Reverse DNS of `ip`, best effort; empty when none. */
    host: text('host').notNull().default(''),
    cc: text('cc').notNull().default(''),
    reg: text('reg').notNull().default(''),
    city: text('city').notNull().default(''),
    zip: text('zip').notNull().default(''),
    isp: text('isp').notNull().default(''),
    /** Mobile carrier address (loc.mob). */
    mob: boolean('mob').notNull().default(false),
    lat: doublePrecision('lat'),
    lon: doublePrecision('lon'),
    conn: text('conn', { enum: ['wifi', 'cell'] })
      .notNull()
      .default('wifi'),
    dev: text('dev', { enum: ['android', 'other'] })
      .notNull()
      .default('other'),
    /** Clean score 1-10. */
    stars: integer('stars').notNull().default(5),
    /** Static proxies are sold 24-hour private only, from their own list. */
    isStatic: boolean('is_static').notNull().default(false),
    firstSeen: timestamp('first_seen', { withTimezone: true }),
    lastSeen: timestamp('last_seen', { withTimezone: true }),
    online: boolean('online').notNull().default(false),
    /** Fraction (0-1) of the last 24 hours online. */
    actv: real('actv').notNull().default(0),
    /** Fraction (0-1) of the last 24 hours' probes through the agent that succeeded. */
    probeActv: real('probe_actv').notNull().default(0),
    /** Last speed test through the agent, bits per second (0 when it failed). */
    speedBps: bigint('speed_bps', { mode: 'number' }),
    speedCheckedAt: timestamp('speed_checked_at', { withTimezone: true }),
    /** 'ok' | 'failed' | 'checking' of the last speed test. */
    speedStatus: text('speed_status'),
    /** Last sale (a lease bought on it), set by the purchase; "New" in the shop means none in 30 days. */
    lastSoldAt: timestamp('last_sold_at', { withTimezone: true }),
    /**
     * Leases on the agent not yet ended (`ended_at` null), shared and private, kept by a trigger on
     * `leases` (migration 0007) so the shop filters and orders on this table alone. A lease past its
     * `until` counts until `leases.expire` ends it (within a minute).
     */
    activeShared: integer('active_shared').notNull().default(0),
    activeExclusive: integer('active_exclusive').notNull().default(0),
    /**
     * The clean score the shop shows and filters on: the blacklist result of the current address
     * (`agent_blacklists`), else `stars`. Kept by triggers on both tables (migration 0023), so the
     * stars filter reads this table alone; what is written here is replaced.
     */
    cleanStars: integer('clean_stars').notNull().default(5),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('agents_key_hash_uq').on(t.keyHash),
    index('agents_node_idx').on(t.nodeId),
    index('agents_cc_idx').on(t.cc),
    // The shop lists only agents on sale; each index covers that set alone (SHOP_LISTED must match the shop's query).
    index('agents_shop_idx').on(t.cc, t.actv.desc(), t.id).where(SHOP_LISTED),
    index('agents_shop_reg_idx').on(t.cc, t.reg, t.conn).where(SHOP_LISTED),
    index('agents_shop_geo_idx').on(t.cc, t.lat, t.lon).where(SHOP_LISTED),
    index('agents_shop_ip_idx').on(t.cc, sql`${t.ip} text_pattern_ops`).where(SHOP_LISTED),
    index('agents_shop_stars_idx').on(t.cc, t.cleanStars).where(SHOP_LISTED),
    // The segment lists (distinct cities, zips, ISPs of a country) as index-only scans.
    index('agents_shop_city_idx').on(t.cc, t.city).where(SHOP_LISTED),
    index('agents_shop_zip_idx').on(t.cc, t.zip).where(SHOP_LISTED),
    index('agents_shop_isp_idx').on(t.cc, t.isp).where(SHOP_LISTED),
    // The static shop's candidates in its order (city, ip); without it a million agents are read.
    index('agents_static_idx')
      .on(t.cc, t.city, t.ip, t.id)
      .where(sql`${t.isStatic} AND ${t.online} AND ${t.nodeId} IS NOT NULL`),
    check('agents_stars_range', sql`${t.stars} BETWEEN 1 AND 10`),
  ],
);

/** Online intervals of an agent; `ended_at` null while connected. Feeds the 24-hour activity. */
export const agentPresence = pgTable(
  'agent_presence',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    nodeId: text('node_id').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (t) => [
    index('agent_presence_agent_idx').on(t.agentId, t.startedAt),
    index('agent_presence_open_idx').on(t.nodeId).where(sql`${t.endedAt} IS NULL`),
  ],
);

/** Result of one periodic probe (a request through the agent to the probe target). */
export const agentProbes = pgTable(
  'agent_probes',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    ok: boolean('ok').notNull(),
    latencyMs: integer('latency_ms'),
    error: text('error'),
  },
  (t) => [index('agent_probes_agent_at_idx').on(t.agentId, t.at)],
);

/**
 * A probe the market API asks for before a purchase (`POST /leases` with `probe`): the node that
 * holds the agent's tunnel claims it on `pg_notify('probe_requested', node_id)`, requests an IP-echo
 * URL through the agent, writes what it saw of the exit and notifies `probe_done` with the id. The
 * API deletes its row once it has the answer or gives up.
 */
export const probeRequests = pgTable(
  'probe_requests',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    /** The node that runs it: the agent's node when it was asked for. */
    nodeId: text('node_id').notNull(),
    requestedAt: timestamp('requested_at', { withTimezone: true }).notNull().defaultNow(),
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
    doneAt: timestamp('done_at', { withTimezone: true }),
    ok: boolean('ok'),
    latencyMs: integer('latency_ms'),
    error: text('error'),
    /** The exit as the probe saw it: `{ ip, host, loc }` (host and loc null when unknown). */
    observed: jsonb('observed'),
  },
  (t) => [index('probe_requests_pending_idx').on(t.nodeId).where(sql`${t.claimedAt} IS NULL`)],
);

/** A customer's lease of an agent. Ids look like `kq3x-4821` (rules §5: admin lease id search). */
export const leases = pgTable(
  'leases',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id),
    /** Private (exclusive) when true; shared (up to 4) when false. */
    exc: boolean('exc').notNull(),
    static: boolean('static').notNull().default(false),
    start: timestamp('start', { withTimezone: true }).notNull().defaultNow(),
    until: timestamp('until', { withTimezone: true }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    refundedAt: timestamp('refunded_at', { withTimezone: true }),
    refundAmountC: bigint('refund_amount_c', { mode: 'number' }).$type<Cents>(),
    /** Why it ended (contracts' LEASE_END_REASONS); null while it runs or for leases ended before it was kept. */
    endReason: text('end_reason'),
    /** Renewals so far: the purchase price paid for `until - start - renewals x 24 h` (the renewal price rule). */
    renewals: integer('renewals').notNull().default(0),
    /** The last amount paid for the lease (purchase or renewal), shown in the history. */
    lastPaymentC: bigint('last_payment_c', { mode: 'number' }).$type<Cents>(),
    purchasePriceC: bigint('purchase_price_c', { mode: 'number' }).$type<Cents>().notNull().default(cents(0)),
    autoRenew: boolean('auto_renew').notNull().default(false),
    socksUser: text('socks_user').notNull(),
    socksPwd: text('socks_pwd').notNull(),
    /** Node serving the lease (the agent's node when leased); names socks.host/ip and authPort.node. */
    nodeId: text('node_id').references(() => gatewayNodes.id),
    /** No-auth port on `node_id`, once allocated. */
    authPort: integer('auth_port'),
    /** Source IPv4 addresses or CIDR ranges allowed on the no-auth port. */
    whitelist: text('whitelist').array().notNull().default(sql`'{}'::text[]`),
    /** Snapshot of the agent's properties at purchase (rules §3 Lease.info). */
    info: jsonb('info').notNull().default({}),
    reqs: bigint('reqs', { mode: 'number' }).notNull().default(0),
    fails: bigint('fails', { mode: 'number' }).notNull().default(0),
    /** Refused credentials (wrong password, 407): shown apart, never in `fails` (the Failed %). */
    authFails: bigint('auth_fails', { mode: 'number' }).notNull().default(0),
    /** Bytes customer-to-proxy ("You to Proxy"). */
    inBytes: bigint('in_bytes', { mode: 'number' }).notNull().default(0),
    /** Bytes proxy-to-customer ("Proxy to You"). */
    outBytes: bigint('out_bytes', { mode: 'number' }).notNull().default(0),
    statsFlushedAt: timestamp('stats_flushed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('leases_socks_user_uq').on(t.socksUser),
    index('leases_agent_active_idx').on(t.agentId).where(sql`${t.endedAt} IS NULL`),
    // The lapsed leases (past `until`, not ended yet) the shop leaves out and leases.expire ends.
    index('leases_lapsed_idx').on(t.until).where(sql`${t.endedAt} IS NULL`),
    index('leases_user_start_idx').on(t.userId, t.start),
    uniqueIndex('leases_node_auth_port_uq')
      .on(t.nodeId, t.authPort)
      .where(sql`${t.endedAt} IS NULL AND ${t.authPort} IS NOT NULL`),
    check(
      'leases_amounts_bounded',
      sql`${t.purchasePriceC} BETWEEN 0 AND ${MONEY_BOUND_SQL} AND (${t.refundAmountC} IS NULL OR ${t.refundAmountC} BETWEEN 0 AND ${MONEY_BOUND_SQL})`,
    ),
    check('leases_id_pattern', sql`${t.id} ~ '^[a-z0-9]{4}-[0-9]{4}$'`),
    check(
      'leases_stats_nonneg',
      sql`${t.reqs} >= 0 AND ${t.fails} >= 0 AND ${t.inBytes} >= 0 AND ${t.outBytes} >= 0`,
    ),
  ],
);

/**
 * A lease's traffic per hour (issue 19: traffic you can check), upserted by the gateway's metering
 * flush in the same statement batch as the lease's totals, so the hours add up to the totals.
 */
export const leaseTrafficHourly = pgTable(
  'lease_traffic_hourly',
  {
    leaseId: text('lease_id')
      .notNull()
      .references(() => leases.id, { onDelete: 'cascade' }),
    /** Start of the hour (UTC). */
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    reqs: bigint('reqs', { mode: 'number' }).notNull().default(0),
    fails: bigint('fails', { mode: 'number' }).notNull().default(0),
    /** Refused credentials (wrong password, 407): shown apart, never in `fails` (the Failed %). */
    authFails: bigint('auth_fails', { mode: 'number' }).notNull().default(0),
    /**
     * The part of `fails` the agent is responsible for (tunnel gone or agent offline, OPEN unanswered
     * in time, the agent's own error; docs/gateway.md "Failure classes"): what the auto-refund counts.
     */
    agentFails: bigint('agent_fails', { mode: 'number' }).notNull().default(0),
    inBytes: bigint('in_bytes', { mode: 'number' }).notNull().default(0),
    outBytes: bigint('out_bytes', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.leaseId, t.hour] }),
    check('lease_traffic_hourly_agent_fails', sql`${t.agentFails} >= 0 AND ${t.agentFails} <= ${t.fails}`),
  ],
);

/** A customer's note on an agent (rules §3 "Agent note"), shown as `note` of their leases on it. */
export const agentNotes = pgTable(
  'agent_notes',
  {
    userId: text('user_id').notNull(),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    note: text('note').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.agentId] }),
    // An empty note is stored as no row (rules §4: cleared means deleted); 200 characters at most (rules §9).
    check('agent_notes_length', sql`char_length(${t.note}) BETWEEN 1 AND 200`),
  ],
);
