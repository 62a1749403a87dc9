import { sql } from 'drizzle-orm';
import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

/**
 * A customer's API keys for the public API (`/api/*` only). The key itself (`pmk_` and 43
 * base64url characters, 256 random bits) is shown once when created; only its SHA-256 is kept,
 * with the first characters for the list. Revoked keys stay as rows (revoked_at) so the list can
 * say when; they never authenticate again.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The identity provider's subject of the account the key acts for. */
    userId: text('user_id').notNull(),
    name: text('name').notNull(),
    /** Hex SHA-256 of the whole key. */
    keyHash: text('key_hash').notNull(),
    /** The key's first 12 characters (`pmk_` + 8), shown in the list to tell keys apart. */
    prefix: text('prefix').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('api_keys_hash_uq').on(t.keyHash),
    index('api_keys_user_idx').on(t.userId).where(sql`${t.revokedAt} IS NULL`),
  ],
);
