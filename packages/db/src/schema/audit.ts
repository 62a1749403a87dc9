import { sql } from 'drizzle-orm';
import { bigserial, check, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The staff audit trail: one row per staff action that changes money, permissions, a block or a
 * password, written in the same transaction as the change (by the server's audit service, and by
 * the identity host for blocks and passwords). Rows are only ever inserted.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    /** The staff member's user id (the token's `sub`). */
    actorId: text('actor_id').notNull(),
    /** `<area>.<verb>`, e.g. `account.balance`, `user.block` (the list is in apps/server/README.md). */
    action: text('action').notNull(),
    /** What the action changed: a user id for account and user actions, a lease or charge id otherwise. */
    targetId: text('target_id').notNull(),
    /** The changed fields before and after (JSON objects; null when there was nothing before/after). */
    before: jsonb('before').$type<Record<string, unknown>>(),
    after: jsonb('after').$type<Record<string, unknown>>(),
    /** Why staff did it (required for balance changes; see apps/server/README.md). */
    reason: text('reason'),
  },
  (t) => [
    index('audit_log_at_idx').on(t.at),
    index('audit_log_actor_at_idx').on(t.actorId, t.at),
    index('audit_log_target_at_idx').on(t.targetId, t.at),
    index('audit_log_action_at_idx').on(t.action, t.at),
    check('audit_log_action_shape', sql`${t.action} ~ '^[a-z]+\\.[a-zA-Z]+$'`),
  ],
);
