import type { Cents } from '@pm/money';
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';
import { MONEY_BOUND_SQL } from './bounds.ts';
import { agents } from './network.ts';

/**
 * The checks of an agent's address (server module `checks`): DNS blacklists and the clean score
 * they give, speed tests asked through the gateway, and paid IP score checks. These tables are the
 * checks module's; the gateway writes only the status and result of the speed checks it claims,
 * and the shop reads the clean score, lists and latest score through the fragments at the end.
 */

/** The last DNSBL lookup of an agent's address. Stale when `ip` is no longer the agent's address. */
export const agentBlacklists = pgTable(
  'agent_blacklists',
  {
    agentId: text('agent_id')
      .primaryKey()
      .references(() => agents.id, { onDelete: 'cascade' }),
    /** The address that was looked up. */
    ip: text('ip').notNull(),
    /** List ids the address is on (ignored lists already dropped), sorted. */
    listIds: text('list_ids').array().notNull(),
    /** Zones that answered with an error code or did not answer: neither listed nor clean. */
    errorZones: text('error_zones').array().notNull(),
    /** Clean score 1-10 from the number of lists (apps/server/README.md, "Checks"). */
    stars: integer('stars').notNull(),
    checkedAt: timestamp('checked_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('agent_blacklists_stars_range', sql`${t.stars} BETWEEN 1 AND 10`),
    index('agent_blacklists_checked_idx').on(t.checkedAt),
  ],
);

/** The states of a speed check. */
export const SPEED_CHECK_STATUSES = ['requested', 'checking', 'done', 'failed'] as const;

/**
 * A speed test through an agent, asked by a customer: the API inserts it (`requested`) for the
 * agent's node and notifies `speedcheck_requested`; that node claims it (`checking`), downloads
 * through the agent and writes `done` with bits per second, or `failed`.
 */
export const speedChecks = pgTable(
  'speed_checks',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    nodeId: text('node_id').notNull(),
    userId: text('user_id').notNull(),
    status: text('status', { enum: SPEED_CHECK_STATUSES }).notNull().default('requested'),
    requestedAt: timestamp('requested_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    doneAt: timestamp('done_at', { withTimezone: true }),
    bps: bigint('bps', { mode: 'number' }),
    error: text('error'),
  },
  (t) => [
    index('speed_checks_agent_idx').on(t.agentId, t.requestedAt),
    index('speed_checks_pending_idx').on(t.nodeId).where(sql`${t.status} = 'requested'`),
    check('speed_checks_status', sql`${t.status} IN ('requested', 'checking', 'done', 'failed')`),
  ],
);

/** A quoted score check: the one-time token `PATCH /agents/scorecheck` spends, at the quoted price. */
export const scoreCheckQuotes = pgTable(
  'score_check_quotes',
  {
    token: text('token').primaryKey(),
    userId: text('user_id').notNull(),
    priceC: bigint('price_c', { mode: 'number' }).$type<Cents>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** Set once, by the purchase that spends the token. */
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [
    index('score_check_quotes_user_idx').on(t.userId, t.createdAt),
    check('score_check_quotes_price', sql`${t.priceC} >= 0 AND ${t.priceC} <= ${MONEY_BOUND_SQL}`),
  ],
);

/**
 * A bought IP score check of an agent's address: providers G, I and M, each
 * `{ status: 'ok' | 'error', score }` (0-100), and the warnings across them.
 */
export const scoreChecks = pgTable(
  'score_checks',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    ip: text('ip').notNull(),
    userId: text('user_id').notNull(),
    /** The quote's token: one check per token. */
    token: text('token')
      .notNull()
      .unique()
      .references(() => scoreCheckQuotes.token),
    priceC: bigint('price_c', { mode: 'number' }).$type<Cents>().notNull(),
    /** running, done (at least one provider answered) or refunded (none did). */
    status: text('status', { enum: ['running', 'done', 'refunded'] })
      .notNull()
      .default('running'),
    /** `{ G: { status, score }, I: …, M: … }`. */
    results: jsonb('results'),
    /** `{ proxy, tor, vpn, hosting, abuse }`. */
    warnings: jsonb('warnings'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    checkedAt: timestamp('checked_at', { withTimezone: true }),
  },
  (t) => [
    index('score_checks_agent_idx').on(t.agentId, t.checkedAt),
    check('score_checks_status', sql`${t.status} IN ('running', 'done', 'refunded')`),
    check('score_checks_price', sql`${t.priceC} >= 0 AND ${t.priceC} <= ${MONEY_BOUND_SQL}`),
  ],
);

// Qualified by hand: inside a one-table select Drizzle writes a column as bare "id", which the
// subqueries below would read as their own table's column.
const agentId = sql.raw('"agents"."id"');
const agentIp = sql.raw('"agents"."ip"');

/**
 * The clean score the shop shows and filters on: the blacklist result for the agent's current
 * address, else the agent row's own `stars` (seeded, until the first lookup of that address). Kept
 * on the row as `clean_stars` by triggers (migration 0023): SQL `agent_clean_stars(id, ip, stars)`.
 */
export const agentCleanStarsSql = sql<number>`${sql.raw('"agents"."clean_stars"')}`;

/** The lists the agent's current address is on (empty before its first lookup). */
export const agentBlacklistIdsSql = sql<
  string[]
>`coalesce((SELECT b.list_ids FROM agent_blacklists b WHERE b.agent_id = ${agentId} AND b.ip = ${agentIp}), '{}'::text[])`;

/** The newest finished score check of the agent's current address, as JSON; null when none. */
export const agentLatestScoreSql = sql<unknown>`(SELECT jsonb_build_object('results', s.results, 'warnings', s.warnings, 'checkedAt', s.checked_at) FROM score_checks s WHERE s.agent_id = ${agentId} AND s.ip = ${agentIp} AND s.status = 'done' ORDER BY s.checked_at DESC LIMIT 1)`;
