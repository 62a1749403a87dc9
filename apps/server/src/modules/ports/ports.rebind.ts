import type { Db, Tx } from '@pm/db';
import { type ItemFailures, settleEach, UNREPORTED } from '../../platform/jobs.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import { createPortBindsRepository } from './ports.binds.repository.ts';
import { createPortsRepository } from './ports.repository.ts';

/** Packages one `ports.rebind` run settles at most (the next run takes the rest). */
export const REBIND_BATCH = 100;

export interface PortRebindDeps {
  db: Db;
  ledger: Pick<LedgerService, 'move'>;
  now: () => number;
}

/** What one run did, by package id (packages that threw went to the run's `failures`). */
export interface RebindReport {
  moved: string[];
  refunded: string[];
}

/**
 * Sold ports their node could not listen on (a restart found the port taken by another process:
 * the node writes `package_ports.bind_error` and counts it). Each such package, in its own
 * transaction under its row lock, moves those ports to spares of the same node (the customer's
 * port numbers change; the node reloads the package at commit) or, when the node has too few
 * spares, ends with a full refund under the customer refund's key `port-refund:<id>:<generation>`,
 * so the two can never both pay. The customer cannot cause a bind failure (no customer binds ports
 * on a gateway machine), so the whole price goes back: the node failed the sale.
 */
export function createPortRebindService(deps: PortRebindDeps) {
  const ports = createPortsRepository(deps.db);
  const binds = createPortBindsRepository();

  async function settle(id: string, tx: Tx): Promise<{ id: string; kind: 'moved' | 'refunded' | 'none' }> {
    const p = await ports.lockPackage(id, tx);
    if (p?.status !== 'active') return { id, kind: 'none' };
    const unbound = await binds.lockUnboundPorts(p.id, tx);
    if (unbound.length === 0) return { id, kind: 'none' };
    const from = unbound.map((u) => u.port);
    const spares = await ports.allocatePorts(p.nodeId, from.length, tx);
    if (spares.length === from.length) {
      await binds.movePorts(p, from, spares, tx);
      return { id, kind: 'moved' };
    }
    if (p.priceC > 0) {
      await deps.ledger.move(
        {
          userId: p.userId,
          amountC: p.priceC,
          type: 'refund',
          memo: `Refund of port package ${p.id}: its node could not serve port ${from[0]}`,
          idemKey: `port-refund:${p.id}:${p.generation}`,
        },
        tx,
      );
    }
    await ports.deletePorts(p.id, tx);
    await ports.updatePackage(
      p.id,
      { status: 'refunded', refundedAt: new Date(deps.now()), refundedC: p.priceC },
      tx,
    );
    return { id, kind: 'refunded' };
  }

  return {
    /**
     * `ports.rebind`: every active package with an unbound port is moved to spares or refunded
     * (see above); a package whose settling throws is rolled back, reported and left for the next run.
     */
    async rebindUnboundPorts(
      limit = REBIND_BATCH,
      failures: ItemFailures = UNREPORTED,
    ): Promise<RebindReport> {
      const { settled } = await settleEach(deps.db, {
        limit,
        failures,
        next: (skip, tx) => binds.lockNextWithUnboundPorts(skip, tx),
        settle: (item, tx) => settle(item.id, tx),
      });
      return {
        moved: settled.filter((s) => s.kind === 'moved').map((s) => s.id),
        refunded: settled.filter((s) => s.kind === 'refunded').map((s) => s.id),
      };
    },
  };
}

/** The rebind service's functions. */
export type PortRebindService = ReturnType<typeof createPortRebindService>;
