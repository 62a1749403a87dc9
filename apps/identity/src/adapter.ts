import type { DbHandle } from '@pm/db';
import type { Adapter, AdapterPayload } from 'oidc-provider';

interface PayloadRow {
  payload: AdapterPayload;
  consumed_at: Date | string | null;
}

/**
 * oidc-provider storage in the `oidc_payloads` table: one row per (model name, id), payload as JSONB.
 * Raw SQL through `DbHandle.query`, so it runs on node-postgres and PGlite alike.
 */
export function createAdapterFactory(handle: DbHandle): (name: string) => Adapter {
  return (name: string) => createAdapter(handle, name);
}

function toPayload(row: PayloadRow | undefined): AdapterPayload | undefined {
  if (!row) return undefined;
  const payload = typeof row.payload === 'string' ? (JSON.parse(row.payload) as AdapterPayload) : row.payload;
  if (row.consumed_at) {
    return { ...payload, consumed: Math.floor(new Date(row.consumed_at).getTime() / 1000) };
  }
  return payload;
}

function createAdapter(handle: DbHandle, type: string): Adapter {
  const findOne = async (where: string, value: string) => {
    const rows = await handle.query<PayloadRow>(
      `SELECT payload, consumed_at FROM oidc_payloads
        WHERE type = $1 AND ${where} = $2 AND (expires_at IS NULL OR expires_at > now()) LIMIT 1`,
      [type, value],
    );
    return toPayload(rows[0]);
  };

  return {
    async upsert(id, payload, expiresIn) {
      const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
      await handle.query(
        `INSERT INTO oidc_payloads (id, type, payload, grant_id, user_code, uid, expires_at)
         VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7)
         ON CONFLICT (id, type) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id,
           user_code = EXCLUDED.user_code, uid = EXCLUDED.uid, expires_at = EXCLUDED.expires_at`,
        [
          id,
          type,
          JSON.stringify(payload),
          payload.grantId ?? null,
          payload.userCode ?? null,
          payload.uid ?? null,
          expiresAt,
        ],
      );
    },
    find: (id) => findOne('id', id),
    findByUid: (uid) => findOne('uid', uid),
    findByUserCode: (userCode) => findOne('user_code', userCode),
    async consume(id) {
      await handle.query('UPDATE oidc_payloads SET consumed_at = now() WHERE type = $1 AND id = $2', [
        type,
        id,
      ]);
    },
    async destroy(id) {
      await handle.query('DELETE FROM oidc_payloads WHERE type = $1 AND id = $2', [type, id]);
    },
    async revokeByGrantId(grantId) {
      await handle.query('DELETE FROM oidc_payloads WHERE grant_id = $1', [grantId]);
    },
  };
}

/** Removes expired rows; the caller runs it now and then (expired rows are already invisible). */
export async function purgeExpiredPayloads(handle: DbHandle): Promise<void> {
  await handle.query('DELETE FROM oidc_payloads WHERE expires_at IS NOT NULL AND expires_at < now()');
}
