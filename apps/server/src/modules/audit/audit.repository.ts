import { auditLog, type Db, type DbOrTx } from '@pm/db';
import { and, count, desc, eq, gte, lt, type SQL } from 'drizzle-orm';

export type AuditRow = typeof auditLog.$inferSelect;
export type NewAuditRow = typeof auditLog.$inferInsert;

export interface AuditFilter {
  actorId?: string | undefined;
  targetId?: string | undefined;
  action?: string | undefined;
  /** Inclusive. */
  from?: Date | undefined;
  /** Exclusive. */
  to?: Date | undefined;
}

function where(f: AuditFilter): SQL | undefined {
  const parts: SQL[] = [];
  if (f.actorId !== undefined) parts.push(eq(auditLog.actorId, f.actorId));
  if (f.targetId !== undefined) parts.push(eq(auditLog.targetId, f.targetId));
  if (f.action !== undefined) parts.push(eq(auditLog.action, f.action));
  if (f.from !== undefined) parts.push(gte(auditLog.at, f.from));
  if (f.to !== undefined) parts.push(lt(auditLog.at, f.to));
  return parts.length > 0 ? and(...parts) : undefined;
}

/** The only place in the server that reads and writes `audit_log` (insert-only). */
export function createAuditRepository(db: Db) {
  return {
    async insert(row: NewAuditRow, tx: DbOrTx = db): Promise<AuditRow> {
      const rows = await tx.insert(auditLog).values(row).returning();
      const inserted = rows[0];
      if (!inserted) throw new Error('audit_log insert returned no row');
      return inserted;
    },
    /** Newest first (by id: the insert order). */
    async find(f: AuditFilter & { offset: number; limit: number }, tx: DbOrTx = db): Promise<AuditRow[]> {
      return tx
        .select()
        .from(auditLog)
        .where(where(f))
        .orderBy(desc(auditLog.id))
        .offset(f.offset)
        .limit(f.limit);
    },
    async count(f: AuditFilter, tx: DbOrTx = db): Promise<number> {
      const rows = await tx.select({ n: count() }).from(auditLog).where(where(f));
      return Number(rows[0]?.n ?? 0);
    },
  };
}

/** The audit repository's functions. */
export type AuditRepository = ReturnType<typeof createAuditRepository>;
