import type { AuditRecordInput, TAuditEntry, TAuditQuery, TAuditResponse } from '@pm/contracts';
import type { Db, Tx } from '@pm/db';
import { type AuditRow, createAuditRepository } from './audit.repository.ts';

/** What the audit service is built from. */
export interface AuditServiceDeps {
  db: Db;
}

/** The audit service's functions (derived from the factory). */
export type AuditService = ReturnType<typeof createAuditService>;

/** Maps a stored row to its wire shape. */
export function toAuditEntry(row: AuditRow): TAuditEntry {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actorId: row.actorId,
    action: row.action,
    targetId: row.targetId,
    before: row.before ?? null,
    after: row.after ?? null,
    reason: row.reason ?? null,
  };
}

/** The staff audit trail: other modules record their staff actions; staff read them. */
export function createAuditService(deps: AuditServiceDeps) {
  const repo = createAuditRepository(deps.db);

  return {
    /**
     * Writes one audit row in the caller's transaction, so the row exists exactly when the change
     * it describes does. `before`/`after` hold only the fields the action changed (never secrets).
     */
    async record(tx: Tx, row: AuditRecordInput): Promise<TAuditEntry> {
      const inserted = await repo.insert(
        {
          actorId: row.actorId,
          action: row.action,
          targetId: row.targetId,
          before: row.before ?? null,
          after: row.after ?? null,
          reason: row.reason ?? null,
        },
        tx,
      );
      return toAuditEntry(inserted);
    },
    /** `GET /admin/audit`: one page, newest first, and the total matching the filters. */
    async list(query: TAuditQuery): Promise<TAuditResponse> {
      const filter = {
        actorId: query.actor,
        targetId: query.target,
        action: query.action,
        from: query.from,
        to: query.to,
      };
      const [rows, total] = await Promise.all([
        repo.find({ ...filter, offset: query.offset, limit: query.limit }),
        repo.count(filter),
      ]);
      return { items: rows.map(toAuditEntry), total };
    },
  };
}
