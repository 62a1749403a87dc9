import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, type TPortPackage } from '@pm/contracts';
import type { Tx } from '@pm/db';
import { formatUsd } from '@pm/money';
import { type SaleKey, saleFingerprint } from '../sales/sales.service.ts';
import { DEFAULT_FLUSH, type PortsCaller, type PortsContext, portsErrors } from './ports.context.ts';
import type { PackageRow } from './ports.repository.ts';
import { isPortRefundable, portRefundAmountC } from './ports.rules.ts';

/** The ledger key of a package's refund: one per package and generation, whoever refunds it. */
export const portRefundIdemKey = (p: Pick<PackageRow, 'id' | 'generation'>) =>
  `port-refund:${p.id}:${p.generation}`;

const refundErrors = {
  notRefundable: (p: PackageRow) =>
    new AppError('CONFLICT', {
      message: `package ${p.id} (${p.status}, ${p.upload + p.download} bytes) is not refundable`,
      userMessage: 'error while refund port',
      details: { errorCode: 'notRefundable' },
    }),
  countersLate: (p: PackageRow, retryAfterSeconds: number) =>
    new AppError('UNAVAILABLE', {
      message: `node ${p.nodeId} did not flush package ${p.id}'s counters in time`,
      userMessage: 'The refund cannot be decided right now, try again in a few seconds',
      details: { retryAfterSeconds },
    }),
};

/**
 * Refunds that cannot be played: the decision reads the package's exact counters (its node is
 * asked to flush them first and relays nothing for the package until the answer) and returns the last charge less the traffic used at the package's
 * per-Gb price, in one transaction under the package's lock, through the sale kernel.
 */
export function createPortRefund(ctx: PortsContext) {
  const { deps, repo } = ctx;
  const flush = {
    waitMs: deps.flush?.waitMs ?? DEFAULT_FLUSH.waitMs,
    pollMs: deps.flush?.pollMs ?? DEFAULT_FLUSH.pollMs,
    nodeSilentMs: deps.flush?.nodeSilentMs ?? DEFAULT_FLUSH.nodeSilentMs,
  };

  /**
   * Waits, after the package's node was asked for its exact counters (`repo.requestFlush`, whose
   * trigger NOTIFYs `package_flush`; the node freezes the package first), until the node stamps `stats_flushed_at` at or after the request. A
   * node without a recent heartbeat meters nothing more, so its counters are final; a live node that
   * does not answer within `waitMs` makes the refund UNAVAILABLE with Retry-After.
   */
  async function awaitExactCounters(p: PackageRow, requestedAt: string): Promise<void> {
    const deadline = performance.now() + flush.waitMs;
    for (;;) {
      const state = await repo.findFlushState(p.id, requestedAt, flush.nodeSilentMs);
      if (!state || state.isFlushed || state.isNodeSilent) return;
      if (performance.now() >= deadline) throw refundErrors.countersLate(p, Math.ceil(flush.waitMs / 1000));
      await sleep(flush.pollMs);
    }
  }

  async function refundIn(caller: PortsCaller, id: string, key: SaleKey | undefined, tx: Tx) {
    if (key) {
      const prior = await deps.saleKeys.claim(key, tx);
      if (prior?.packageId) return undefined;
    }
    const p = await ctx.lockOwn(caller, id, tx);
    // The rule again, under the lock, on the counters the node has just flushed.
    if (!isPortRefundable(p, deps.now())) throw refundErrors.notRefundable(p);
    const amountC = portRefundAmountC(p);
    if (amountC > 0) {
      const kept = p.priceC - amountC;
      await deps.ledger.move(
        {
          userId: p.userId,
          amountC,
          type: 'refund',
          memo: `Refund of port package ${p.id}${kept > 0 ? `, less ${formatUsd(kept)} for the traffic used` : ''}`,
          idemKey: portRefundIdemKey(p),
        },
        tx,
      );
    }
    await repo.deletePorts(p.id, tx);
    const row = await repo.updatePackage(
      p.id,
      { status: 'refunded', refundedAt: new Date(deps.now()), refundedC: amountC },
      tx,
    );
    if (key) await deps.saleKeys.record(key, { packageId: p.id, priceC: amountC }, tx);
    return row;
  }

  return {
    /**
     * Refunds the caller's package when the refund rule holds on its exact counters (else CONFLICT
     * `notRefundable`, 'error while refund port'; UNAVAILABLE with Retry-After when its live node
     * does not flush in time; either refusal lets the package relay again at once): credits the
     * last charge less the traffic used, ends the package and
     * frees its ports. With `idemKey` a retry answers the refunded package and pays nothing more.
     */
    async refundPackage(caller: PortsCaller, id: string, idemKey?: string): Promise<TPortPackage> {
      const key: SaleKey | undefined = idemKey
        ? {
            userId: caller.userId,
            idemKey,
            kind: 'port-refund',
            fingerprint: saleFingerprint('port-refund', [id]),
          }
        : undefined;
      if (key) {
        const prior = await deps.saleKeys.findPrior(key);
        if (prior?.packageId) return ctx.readPackageById(prior.packageId);
      }
      const seen = await repo.findPackage(id);
      if (!seen || seen.userId !== caller.userId) throw portsErrors.notFound();
      // Counters only grow and time only passes: a package the rule refuses now is refused at once.
      if (!isPortRefundable(seen, deps.now())) throw refundErrors.notRefundable(seen);
      // One decision at a time per package, from its request to its answer: a refused twin's
      // clearing cannot unfreeze the package while another decision is under way.
      const row = await deps.saleKeys.inTurn(`package:${id}`, async () => {
        const requestedAt = await repo.requestFlush(id);
        try {
          await awaitExactCounters(seen, requestedAt);
          return await deps.db.transaction((tx) => refundIn(caller, id, key, tx));
        } catch (e) {
          // Refused (or failed): the node's freeze ends now, not at its expiry, so the package serves again.
          await repo.clearFlush(id, requestedAt).catch(() => {});
          throw e;
        }
      });
      return row ? ctx.readPackage(row) : ctx.readPackageById(id);
    },
  };
}
