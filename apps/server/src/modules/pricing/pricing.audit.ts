import type { Db, Tx } from '@pm/db';
import { type AuditService, createAuditService } from '../audit/audit.service.ts';

/** The staff price tables and the audit action of replacing each. */
const PRICE_TABLES = {
  'pricing.rules': 'pricing_rules',
  'pricing.ports': 'port_pricing',
} as const;

/** A staff replacement of a whole price table, as its audit row describes it. */
export interface PriceTableChange<T> {
  action: keyof typeof PRICE_TABLES;
  /** The staff member's user id. */
  actorId: string;
  reason?: string | null | undefined;
  /** Reads the whole table in the change's transaction (before and after the write). */
  read(): Promise<T>;
  /** Replaces the table in the same transaction. */
  write(): Promise<unknown>;
}

/**
 * Staff price changes, audited: a replacement of the lease price list (`PUT /pricing/rules`) or the
 * port price table (`PUT /pricing/ports`) writes one `audit_log` row in its own transaction, with
 * the whole table before and after (`{ rows }`), so "every price 1 cent for a minute" leaves a
 * trace with who did it. `audit` defaults to the audit service on `db` (the ports module builds
 * its price table without one).
 */
export function createPriceTableAudit(deps: { db: Db; audit?: Pick<AuditService, 'record'> | undefined }) {
  const audit = deps.audit ?? createAuditService({ db: deps.db });
  return {
    /** Reads the table, writes the change, reads it again and records both, all in `tx`. */
    async replace<T>(tx: Tx, change: PriceTableChange<T>): Promise<T> {
      const before = await change.read();
      await change.write();
      const after = await change.read();
      await audit.record(tx, {
        actorId: change.actorId,
        action: change.action,
        targetId: PRICE_TABLES[change.action],
        before: { rows: before },
        after: { rows: after },
        reason: change.reason ?? null,
      });
      return after;
    },
  };
}
