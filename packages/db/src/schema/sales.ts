import type { Cents } from '@pm/money';
import { sql } from 'drizzle-orm';
import { bigint, index, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { leases } from './network.ts';

/**
 * An active lease at PostgreSQL's `now()` (the transaction's start): the SQL rule `lease_active`
 * (migration 0019, the one definition: not ended and `until` still ahead; its TypeScript twin is
 * `isLeaseActive` in `@pm/contracts`). The sale path, the shop and the static shop all read it; the
 * `agents.active_*` counters count leases not ended, so the shop corrects them for lapsed ones. The
 * planner inlines the function, so the partial indexes on `ended_at IS NULL` still apply.
 */
export const ACTIVE_LEASE = sql`lease_active(${leases.endedAt}, ${leases.until}, now())`;

/**
 * A customer's `Idempotency-Key` on a sale (`POST /leases`, `POST /static/lease`, renew): the first
 * sale under the key stores its request's fingerprint and lease in its own transaction, so a retry
 * (or a parallel twin, which waits on the key's row) answers that lease and is never charged again.
 * A refused sale stores nothing (its transaction rolls back), so the key can be retried.
 */
export const saleRequests = pgTable(
  'sale_requests',
  {
    userId: text('user_id').notNull(),
    /** The client's `Idempotency-Key` header (1-200 printable ASCII). */
    idemKey: text('idem_key').notNull(),
    /** 'purchase' | 'static' | 'renew' | 'port' | 'reactivate' | 'port-refund'. */
    kind: text('kind').notNull(),
    /** The request as it matters for the sale (kind, agent, private, expected price; the lease for a renewal). */
    fingerprint: text('fingerprint').notNull(),
    leaseId: text('lease_id').references(() => leases.id, { onDelete: 'cascade' }),
    /** The port package a port sale, reactivation or refund under the key answered. */
    packageId: text('package_id'),
    /** What the sale charged (the renewal price a replay answers). */
    priceC: bigint('price_c', { mode: 'number' }).$type<Cents>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.idemKey] }), index('sale_requests_lease_idx').on(t.leaseId)],
);
