import { index, pgTable, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * The gateway meter's applied flushes (issue 38: a database outage survived). Each flush of the
 * traffic counters carries a fresh id and inserts it in the same statement as the counters; a flush
 * whose answer never came (the connection lost, a timeout after the commit) is sent again with the
 * same id, and the id already here makes the retry write nothing: counted once, never twice. Kept a
 * day, longer than a node retries one flush; the meter deletes older rows.
 */
export const meterFlushes = pgTable(
  'meter_flushes',
  {
    id: uuid('id').primaryKey(),
    flushedAt: timestamp('flushed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('meter_flushes_flushed_at_idx').on(t.flushedAt)],
);
