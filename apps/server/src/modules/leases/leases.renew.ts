import { AppError, LEASE_DURATION_MS, RENEW_EXTENSION_MS, type TRenewResult } from '@pm/contracts';
import type { Db, Tx } from '@pm/db';
import type { Cents } from '@pm/money';
import type { LedgerService } from '../ledger/ledger.service.ts';
import { createLifecycleRepository } from './leases.lifecycle.repository.ts';
import type { LeaseRow } from './leases.repository.ts';
import type { LeaseService } from './leases.service.ts';
import { isRenewable } from './leases.stats.ts';

/** What the renewal, refund and lifecycle jobs are built from. */
export interface LifecycleDeps {
  db: Db;
  ledger: Pick<LedgerService, 'move' | 'getBalance'>;
  leases: Pick<LeaseService, 'getLease'>;
  /** Clock (ms since epoch); tests pass a fixed one. */
  now?: () => number;
}

/**
 * Renewal price (SPEC 9): floor(purchase price / hours leased x 24), where "hours leased" is the
 * period the purchase price paid for (`until - start` less 24 h per renewal so far). Exact integer
 * arithmetic: a 24-hour lease renews at its purchase price, a 7-hour one at floor(p / 7 x 24).
 */
export function renewalPriceC(
  lease: Pick<LeaseRow, 'purchasePriceC' | 'start' | 'until' | 'renewals'>,
): Cents {
  const paidMs = lease.until.getTime() - lease.start.getTime() - lease.renewals * LEASE_DURATION_MS;
  if (paidMs <= 0) return lease.purchasePriceC;
  return Number((BigInt(lease.purchasePriceC) * BigInt(LEASE_DURATION_MS)) / BigInt(paidMs)) as Cents;
}

/** The ledger's idempotency key of a renewal: one per lease and period end, so a retried renewal never charges twice. */
export const renewIdemKey = (lease: Pick<LeaseRow, 'id' | 'until'>) =>
  `renew:${lease.id}:${lease.until.toISOString()}`;

export const renewErrors = {
  notFound: () => new AppError('NOT_FOUND', { userMessage: 'Lease not found' }),
  notRenewable: () =>
    new AppError('CONFLICT', {
      userMessage: 'Renewal failed, please contact support for help.',
      details: { errorCode: 'notRenewable', status: 'RENEW_STATUS_NOT_RENEWABLE' },
    }),
  notEnoughFunds: (cause?: unknown) =>
    new AppError('PAYMENT_REQUIRED', {
      userMessage: 'Not enough funds on your balance',
      details: { errorCode: 'notEnoughFunds', status: 'RENEW_STATUS_NOT_ENOUGH_FUNDS' },
      cause,
    }),
};

/** The renewal itself in the caller's transaction (lease row locked): the ledger debit, then the conditional extension. */
export async function renewLocked(
  deps: Pick<LifecycleDeps, 'ledger' | 'db'>,
  lease: LeaseRow,
  tx: Tx,
): Promise<{ priceC: Cents; balanceC: Cents | undefined; row: LeaseRow }> {
  const repo = createLifecycleRepository(deps.db);
  const priceC = renewalPriceC(lease);
  const toUntil = new Date(lease.until.getTime() + RENEW_EXTENSION_MS);
  let balanceC: Cents | undefined;
  if (priceC > 0) {
    try {
      const moved = await deps.ledger.move(
        {
          userId: lease.userId,
          amountC: -priceC as Cents,
          type: 'renewal',
          memo: `Renewal of lease ${lease.id} until ${toUntil.toISOString()}`,
          idemKey: renewIdemKey(lease),
        },
        tx,
      );
      balanceC = moved.balanceC;
    } catch (e) {
      // No account yet is a balance of zero.
      if (e instanceof AppError && (e.code === 'PAYMENT_REQUIRED' || e.code === 'NOT_FOUND'))
        throw renewErrors.notEnoughFunds(e);
      throw e;
    }
  }
  const row = await repo.extend(lease.id, { fromUntil: lease.until, toUntil, priceC }, tx);
  // The row is locked by the caller, so the condition holds; a miss means a bug, and the debit rolls back.
  if (!row) throw new AppError('INTERNAL', { message: `lease ${lease.id} changed under its lock` });
  return { priceC, balanceC, row };
}

/** The customer's renewal (`PATCH /leases/{id}`). */
export function createRenewService(deps: LifecycleDeps) {
  const now = deps.now ?? Date.now;
  const repo = createLifecycleRepository(deps.db);
  return {
    /**
     * Renews the caller's lease for 24 hours from its current end at the renewal price, in one
     * transaction (ledger 'renewal' record and the lease's new end). Only in the last 5 hours:
     * otherwise (or when ended) CONFLICT notRenewable; PAYMENT_REQUIRED notEnoughFunds when the
     * balance does not cover it; another customer's lease is NOT_FOUND.
     */
    async renewLease(userId: string, id: string): Promise<TRenewResult> {
      const done = await deps.db.transaction(async (tx) => {
        const lease = await repo.lockLease(id, tx);
        if (!lease || lease.userId !== userId) throw renewErrors.notFound();
        if (!isRenewable(lease, now())) throw renewErrors.notRenewable();
        const renewed = await renewLocked(deps, lease, tx);
        const balanceC = renewed.balanceC ?? (await deps.ledger.getBalance(userId, tx));
        return { priceC: renewed.priceC, balanceC };
      });
      return { status: 'RENEW_STATUS_RENEWED', ...done, lease: await deps.leases.getLease(id) };
    },
  };
}

/** The renew service's functions. */
export type RenewService = ReturnType<typeof createRenewService>;
