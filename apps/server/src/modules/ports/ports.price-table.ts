import type { TPortPriceRow } from '@pm/contracts';
import { createPriceTableAudit } from '../pricing/pricing.audit.ts';
import type { PortsContext } from './ports.context.ts';
import { toPriceTable } from './ports.pricing.ts';

/** The operator's port price table (`GET|PUT /pricing/ports`, staff). */
export function createPortPriceTable(ctx: PortsContext) {
  const { deps, repo } = ctx;

  /** The port price table, and who changed it last and when. */
  async function getPricing() {
    const rows = await repo.findPriceRows();
    const latest = rows.reduce<(typeof rows)[number] | undefined>(
      (a, r) => (!a || r.updatedAt > a.updatedAt ? r : a),
      undefined,
    );
    return {
      rows: rows.map((r) => ({ kind: r.kind as TPortPriceRow['kind'], key: r.key, value: r.value })),
      updatedAt: latest?.updatedBy ? latest.updatedAt.toISOString() : null,
      updatedBy: latest?.updatedBy ?? null,
    };
  }

  return {
    getPricing,

    /** Replaces the port price table (every kind and key once; percents 1-1000). */
    async replacePricing(rows: TPortPriceRow[], staffId: string) {
      toPriceTable(rows);
      // Audited with the table before and after (pricing.audit.ts), in the replacement's transaction.
      await deps.db.transaction((tx) =>
        createPriceTableAudit(deps).replace(tx, {
          action: 'pricing.ports',
          actorId: staffId,
          read: async () =>
            (await repo.findPriceRows(tx)).map(({ kind, key, value }) => ({ kind, key, value })),
          write: () => repo.replacePriceRows(rows, staffId, tx),
        }),
      );
      return getPricing();
    },
  };
}
