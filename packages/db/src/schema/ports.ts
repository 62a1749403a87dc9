import type { Cents } from '@pm/money';
import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { MONEY_BOUND_SQL } from './bounds.ts';
import { agents, gatewayNodes } from './network.ts';

/**
 * A port package (rules §3): N rotating ports for 1, 7 or 30 days, billed by traffic volume
 * (or one unlimited port), exiting through online agents of one geo and connection type. Owned by
 * the server's ports module; the gateway adds the traffic counters (`requests`, `errors`, `upload`,
 * `download`, `stats_flushed_at`) and suspends a package at its volume.
 */
export const portPackages = pgTable(
  'port_packages',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    userEmail: text('user_email').notNull().default(''),
    /** What the last purchase or reactivation charged. */
    priceC: bigint('price_c', { mode: 'number' }).$type<Cents>().notNull(),
    periodDays: integer('period_days').notNull(),
    trafficType: text('traffic_type', { enum: ['limit', 'unlimit'] }).notNull(),
    /** Volume in Gb (0 for unlimited). */
    trafficGb: integer('traffic_gb').notNull(),
    region: text('region').notNull().default(''),
    country: text('country').notNull(),
    /** '' for any state / city. */
    state: text('state').notNull().default(''),
    city: text('city').notNull().default(''),
    connectionType: text('connection_type', { enum: ['wifi', 'mobile', 'both'] }).notNull(),
    switchType: text('switch_type', { enum: ['timer', 'api'] }).notNull(),
    /** Rotation timer in minutes (5, 10, 15); null for rotation by the link only. */
    switchTimer: integer('switch_timer'),
    /** The rotation link's key (`/port/change/ip/{port}/{key}`). */
    apiKey: text('api_key').notNull(),
    accessType: text('access_type', { enum: ['auth', 'whitelist'] }).notNull(),
    authLogin: text('auth_login').notNull(),
    authPassword: text('auth_password').notNull(),
    whitelistIps: text('whitelist_ips').array().notNull().default(sql`'{}'::text[]`),
    /** The gateway node the package's ports sit on. */
    nodeId: text('node_id')
      .notNull()
      .references(() => gatewayNodes.id),
    portAmount: integer('port_amount').notNull(),
    /** active, suspend (volume or period used up), refunded. */
    status: text('status', { enum: ['active', 'suspend', 'refunded'] }).notNull(),
    /** Why a package is suspended: 'volume' or 'expired'. */
    suspendReason: text('suspend_reason'),
    dateStart: timestamp('date_start', { withTimezone: true }).notNull(),
    dateFinish: timestamp('date_finish', { withTimezone: true }).notNull(),
    requests: bigint('requests', { mode: 'number' }).notNull().default(0),
    errors: bigint('errors', { mode: 'number' }).notNull().default(0),
    /** Refused credentials on the package's ports (wrong password): apart from `errors`. */
    authFails: bigint('auth_fails', { mode: 'number' }).notNull().default(0),
    /** Bytes the customer sent / received since the last (re)activation. */
    upload: bigint('upload', { mode: 'number' }).notNull().default(0),
    download: bigint('download', { mode: 'number' }).notNull().default(0),
    statsFlushedAt: timestamp('stats_flushed_at', { withTimezone: true }),
    /**
     * When a decision that pays out (a refund) asked the package's node for its exact counters; the
     * node's meter answers by flushing and stamping `stats_flushed_at` at or after this.
     */
    flushRequestedAt: timestamp('flush_requested_at', { withTimezone: true }),
    /** What the refund returned (the last charge less the traffic used at its per-Gb price). */
    refundedC: bigint('refunded_c', { mode: 'number' }).$type<Cents>(),
    /** How many times the package was bought (1) or reactivated (+1): the charge keys' counter. */
    generation: integer('generation').notNull().default(1),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    refundedAt: timestamp('refunded_at', { withTimezone: true }),
  },
  (t) => [
    index('port_packages_user_idx').on(t.userId, t.createdAt),
    uniqueIndex('port_packages_login_idx').on(t.authLogin),
    index('port_packages_status_idx').on(t.status, t.dateFinish),
    check('port_packages_period', sql`${t.periodDays} IN (1, 7, 30)`),
    check('port_packages_price', sql`${t.priceC} BETWEEN 0 AND ${MONEY_BOUND_SQL}`),
    check('port_packages_ports', sql`${t.portAmount} BETWEEN 1 AND 400`),
    check('port_packages_timer', sql`${t.switchTimer} IS NULL OR ${t.switchTimer} IN (5, 10, 15)`),
  ],
);

/**
 * A port of a node: a spare the node bound and confirmed (`package_id` null, `bound_at` set), or
 * one port of a package on its node: the sticky exit (`agent_id`, chosen by the gateway) and when
 * it last rotated. `rotate_seq` rises on each rotation by the link; the gateway re-chooses then.
 */
export const packagePorts = pgTable(
  'package_ports',
  {
    /** Null for a spare: a port the node bound and holds ready, sold by taking it into a package. */
    packageId: text('package_id').references(() => portPackages.id, { onDelete: 'cascade' }),
    nodeId: text('node_id')
      .notNull()
      .references(() => gatewayNodes.id),
    port: integer('port').notNull(),
    agentId: text('agent_id').references(() => agents.id, { onDelete: 'set null' }),
    rotateSeq: integer('rotate_seq').notNull().default(0),
    rotatedAt: timestamp('rotated_at', { withTimezone: true }),
    /** When the node confirmed it listens on this port (and its HTTP twin); null until then. */
    boundAt: timestamp('bound_at', { withTimezone: true }),
    /** Why the node could not listen on it (the port is moved or the package refunded). */
    bindError: text('bind_error'),
  },
  (t) => [primaryKey({ columns: [t.nodeId, t.port] }), index('package_ports_package_idx').on(t.packageId)],
);

/**
 * The operator's port price table (`GET|PUT /pricing/ports`). `kind`/`key` rows: `gb`/period days
 * (cents per Gb), `unlimit`/period days (cents for the one unlimited port), `ports`/count (cents
 * added for that many ports), and percents for `geo` (country, state, city), `conn` (wifi, mobile,
 * both) and `access` (auth, whitelist). Seeded by the ports migration.
 */
export const portPricing = pgTable(
  'port_pricing',
  {
    kind: text('kind').notNull(),
    key: text('key').notNull(),
    value: bigint('value', { mode: 'number' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    updatedBy: text('updated_by'),
  },
  (t) => [
    primaryKey({ columns: [t.kind, t.key] }),
    check('port_pricing_value', sql`${t.value} BETWEEN 0 AND ${MONEY_BOUND_SQL}`),
  ],
);

/**
 * A package's traffic per UTC hour (the gateway's meter flush adds to it, like
 * `lease_traffic_hourly`): the Ports page's hourly CSV.
 */
export const packageTrafficHourly = pgTable(
  'package_traffic_hourly',
  {
    packageId: text('package_id')
      .notNull()
      .references(() => portPackages.id, { onDelete: 'cascade' }),
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    reqs: bigint('reqs', { mode: 'number' }).notNull().default(0),
    fails: bigint('fails', { mode: 'number' }).notNull().default(0),
    authFails: bigint('auth_fails', { mode: 'number' }).notNull().default(0),
    inBytes: bigint('in_bytes', { mode: 'number' }).notNull().default(0),
    outBytes: bigint('out_bytes', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.packageId, t.hour] })],
);
