import { AppError, type TPortPackage } from '@pm/contracts';
import type { Tx } from '@pm/db';
import { type SaleKey, saleFingerprint } from '../sales/sales.service.ts';
import type { PortsCaller, PortsContext } from './ports.context.ts';
import { DAY_MS } from './ports.mapper.ts';
import type { PackageRow } from './ports.repository.ts';
import { isPortReactivatable } from './ports.rules.ts';

const notSuspended = (p: PackageRow) =>
  new AppError('CONFLICT', {
    message: `package ${p.id} is ${p.status}`,
    userMessage: 'error while reactivated port',
    details: { errorCode: 'notSuspended' },
  });

/**
 * Reactivating a package that no longer serves, through the sale kernel: the Idempotency-Key
 * record (the request is the package), the charge of the package's price through `ledger.charge`
 * keyed by its next generation, and a fresh period with zeroed counters, in one transaction under
 * the package's lock.
 */
export function createPortReactivation(ctx: PortsContext) {
  const { deps, repo } = ctx;

  async function reactivateIn(caller: PortsCaller, id: string, key: SaleKey | undefined, tx: Tx) {
    if (key) {
      const prior = await deps.saleKeys.claim(key, tx);
      if (prior?.packageId) return undefined;
    }
    const p = await ctx.lockOwn(caller, id, tx);
    const nowMs = deps.now();
    if (!isPortReactivatable(p, nowMs)) throw notSuspended(p);
    const generation = p.generation + 1;
    // The package's own price, the one its Reactivate dialog shows (402 notEnoughFunds, 403 accountBlocked).
    await deps.ledger.charge(
      {
        userId: p.userId,
        amountC: p.priceC,
        type: 'port',
        memo: `Reactivation of port package ${p.id}`,
        idemKey: `port:${p.id}:${generation}`,
      },
      tx,
    );
    const row = await repo.updatePackage(
      p.id,
      {
        status: 'active',
        suspendReason: null,
        generation,
        dateStart: new Date(nowMs),
        dateFinish: new Date(nowMs + p.periodDays * DAY_MS),
        upload: 0,
        download: 0,
        requests: 0,
        errors: 0,
        authFails: 0,
      },
      tx,
    );
    if (key) await deps.saleKeys.record(key, { packageId: p.id, priceC: p.priceC }, tx);
    return row;
  }

  return {
    /**
     * Reactivates the caller's package that no longer serves (suspended, or past its date or volume
     * and not marked yet): charges its price again (402 when the balance does not cover it, 403 for a
     * blocked account), starts a new period with fresh counters. Anything else is CONFLICT
     * `notSuspended`. With `idemKey` a retry answers the reactivated package and charges nothing.
     */
    async reactivatePackage(caller: PortsCaller, id: string, idemKey?: string): Promise<TPortPackage> {
      const key: SaleKey | undefined = idemKey
        ? {
            userId: caller.userId,
            idemKey,
            kind: 'reactivate',
            fingerprint: saleFingerprint('reactivate', [id]),
          }
        : undefined;
      if (key) {
        const prior = await deps.saleKeys.findPrior(key);
        if (prior?.packageId) return ctx.readPackageById(prior.packageId);
      }
      // Reactivations and refunds of one package take turns in memory before its row lock.
      const row = await deps.saleKeys.inTurn(`package:${id}`, () =>
        deps.db.transaction((tx) => reactivateIn(caller, id, key, tx)),
      );
      return row ? ctx.readPackage(row) : ctx.readPackageById(id);
    },
  };
}
