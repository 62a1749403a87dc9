import { createHash, randomBytes } from 'node:crypto';
import { API_KEY_PREFIX, AppError, MAX_API_KEYS, type TApiKey, type TApiKeyCreated } from '@pm/contracts';
import type { Db } from '@pm/db';
import type { Principal } from '../../platform/auth.ts';
import { type ApiKeyRow, createApiKeysRepository } from './apikeys.repository.ts';

/** `pmk_` + 43 base64url characters (256 random bits). */
const KEY_SHAPE = /^pmk_[A-Za-z0-9_-]{43}$/;

export const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex');

function toApiKey(row: ApiKeyRow): TApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created: row.createdAt.toISOString(),
    lastUsed: row.lastUsedAt ? row.lastUsedAt.toISOString() : null,
  };
}

/**
 * Customers' API keys for the public API: created with a name and shown once, stored as SHA-256
 * (a 256-bit random key needs no slow hash), listed, revoked. `resolve` turns a presented key into
 * the caller the `/api` routes act for.
 */
export function createApiKeyService(deps: { db: Db }) {
  const repo = createApiKeysRepository(deps.db);
  return {
    /** Creates a key; 409 LIMIT_REACHED past MAX_API_KEYS unrevoked keys. */
    async createKey(userId: string, name: string): Promise<TApiKeyCreated> {
      const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
      const row = await deps.db.transaction(async (tx) => {
        await repo.lockUser(userId, tx);
        if ((await repo.countActive(userId, tx)) >= MAX_API_KEYS) {
          throw new AppError('CONFLICT', {
            message: `${userId} holds ${MAX_API_KEYS} API keys`,
            userMessage: `You can hold at most ${MAX_API_KEYS} API keys; revoke one first`,
            details: { errorCode: 'apiKeyLimit' },
          });
        }
        return repo.insert({ userId, name, keyHash: hashApiKey(key), prefix: key.slice(0, 12) }, tx);
      });
      return { ...toApiKey(row), key };
    },
    async listKeys(userId: string): Promise<{ keys: TApiKey[] }> {
      return { keys: (await repo.listActive(userId)).map(toApiKey) };
    },
    /** Revokes one of the caller's keys at once (404 when it is not theirs or already revoked). */
    async revokeKey(userId: string, id: string): Promise<void> {
      if (!(await repo.revoke(userId, id))) {
        throw new AppError('NOT_FOUND', {
          message: `API key ${id} of ${userId}`,
          userMessage: 'No such API key',
        });
      }
    },
    /** The caller a key acts for (a customer without staff powers), or null. */
    async resolve(key: string): Promise<Principal | null> {
      if (!KEY_SHAPE.test(key)) return null;
      const userId = await repo.useByHash(hashApiKey(key));
      if (!userId) return null;
      return { userId, email: '', refcode: null, permissions: [], isStaff: false };
    },
  };
}
export type ApiKeyService = ReturnType<typeof createApiKeyService>;
