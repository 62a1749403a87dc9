import { index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Rate-limit counters shared by every process of the market API and the identity host (one row
 * per limit and caller, keyed `<app>:<limit>:<caller>`), counted with one atomic upsert
 * (`packages/db/src/rate-limits.ts`). A fixed window: `hits` since the window began, until
 * `reset_at`. `not_before` is the account slow-down's next allowed attempt. Rows past
 * `reset_at` mean nothing and are swept by the market API's `health.sweepRateLimits` job.
 */
export const rateLimits = pgTable(
  'rate_limits',
  {
    key: text('key').primaryKey(),
    hits: integer('hits').notNull(),
    resetAt: timestamp('reset_at', { withTimezone: true, precision: 3 }).notNull(),
    notBefore: timestamp('not_before', { withTimezone: true, precision: 3 }),
  },
  (t) => [index('rate_limits_reset_idx').on(t.resetAt)],
);
