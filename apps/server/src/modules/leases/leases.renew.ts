import { AppError, LEASE_DURATION_MS, RENEW_EXTENSION_MS, type TRenewResult } from '@pm/contracts';
import type { Db, Tx } from '@pm/db';
import type { Cents } from '@pm/money';
import { type AgentsService, createAgentsService } from '../agents/agents.service.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import { createPricingService } from '../pricing/pricing.service.ts';
import { type SaleKeyService, saleFingerprint } from '../sales/sales.service.ts';
import { createLifecycleRepository } from './leases.lifecycle.repository.ts';
import type { LeaseRow } from './leases.repository.ts';
import type { LeaseService } from './leases.service.ts';
import { isRenewable } from './leases.stats.ts';

/** What the renewal, refund and lifecycle jobs are built from. */
export interface LifecycleDeps {
  db: Db;
  ledger: Pick<LedgerService, 'move' | 'charge' | 'getBalance'>;
  leases: Pick<LeaseService, 'getLease'>;
  /** The sale path's reservation (renewals go through it); default: the agents service on `db`. */
  agents?: Pick<AgentsService, 'reserveForSale'>;
  /** Clock (ms since epoch); tests pass a fixed one. */
  now?: () => number;
}

/**
 * Renewal price (rules §9): floor(purchase price / hours leased x 24), where "hours leased" is the
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

/** Whether `e` is the agent's refusal of a sale (agentNotFound, agentAlreadyLeased). */
export function isSaleRefusal(e: unknown): boolean {
  const code = e instanceof AppError && e.code === 'CONFLICT' ? e.details?.errorCode : undefined;
  return code === 'agentNotFound' || code === 'agentAlreadyLeased';
}

/** The agents service a lifecycle service reserves through (the module passes the app's). */
export function lifecycleAgents(deps: Pick<LifecycleDeps, 'agents' | 'db' | 'now'>) {
  return (
    deps.agents ??
    createAgentsService({ db: deps.db, pricing: createPricingService({ db: deps.db }), now: deps.now })
  );
}

/**
 * The renewal itself in the caller's transaction (lease row locked), through the one sale path:
 * the agent reserved under its lock for this lease's kind, leaving the lease itself out (so a lease
 * that lapsed while someone else bought the agent is refused, never doubled), the customer charged
 * (`ledger.charge`: short or no account 402 notEnoughFunds, blocked 403), then the conditional
 * extension. Throws CONFLICT agentAlreadyLeased / agentNotFound when the agent cannot be renewed.
 */
export async function renewLocked(
  deps: Pick<LifecycleDeps, 'ledger' | 'db'> & { agents: Pick<AgentsService, 'reserveForSale'> },
  lease: LeaseRow,
  tx: Tx,
): Promise<{ priceC: Cents; balanceC: Cents; row: LeaseRow }> {
  const repo = createLifecycleRepository(deps.db);
  await deps.agents.reserveForSale(
    lease.agentId,
    { exc: lease.exc, static: lease.static, userId: lease.userId, renewing: lease.id },
    tx,
  );
  const priceC = renewalPriceC(lease);
  const toUntil = new Date(lease.until.getTime() + RENEW_EXTENSION_MS);
  let balanceC: Cents;
  try {
    const charged = await deps.ledger.charge(
      {
        userId: lease.userId,
        amountC: priceC,
        type: 'renewal',
        memo: `Renewal of lease ${lease.id} until ${toUntil.toISOString()}`,
        idemKey: renewIdemKey(lease),
      },
      tx,
    );
    balanceC = charged.balanceC;
  } catch (e) {
    if (e instanceof AppError && e.code === 'PAYMENT_REQUIRED') throw renewErrors.notEnoughFunds(e);
    throw e;
  }
  const row = await repo.extend(lease.id, { fromUntil: lease.until, toUntil, priceC }, tx);
  // The row is locked by the caller, so the condition holds; a miss means a bug, and the debit rolls back.
  if (!row) throw new AppError('INTERNAL', { message: `lease ${lease.id} changed under its lock` });
  return { priceC, balanceC, row };
}

/** The customer's renewal (`PATCH /leases/{id}`), its Idempotency-Key kept by the sale kernel. */
export function createRenewService(
  deps: LifecycleDeps & { saleKeys: Pick<SaleKeyService, 'claim' | 'record'> },
) {
  const now = deps.now ?? Date.now;
  const repo = createLifecycleRepository(deps.db);
  const sales = deps.saleKeys;
  const agents = lifecycleAgents(deps);
  return {
    /**
     * Renews the caller's lease for 24 hours from its current end at the renewal price, in one
     * transaction (ledger 'renewal' record and the lease's new end). Only in the last 5 hours:
     * otherwise (or when ended) CONFLICT notRenewable; PAYMENT_REQUIRED notEnoughFunds when the
     * balance does not cover it; FORBIDDEN accountBlocked; another customer's lease is NOT_FOUND.
     * With `idemKey` a retry of the same renewal answers it again (its price, the balance and the
     * lease now) and charges nothing; the key used for another request is CONFLICT idempotencyKeyReused.
     */
    async renewLease(userId: string, id: string, idemKey?: string): Promise<TRenewResult> {
      const done = await deps.db.transaction(async (tx) => {
        if (idemKey) {
          const key = {
            userId,
            idemKey,
            kind: 'renew' as const,
            fingerprint: saleFingerprint('renew', [id]),
          };
          const prior = await sales.claim(key, tx);
          // The same key renewed this lease already: answer that renewal, never charge again.
          if (prior)
            return {
              priceC: (prior.priceC ?? 0) as Cents,
              balanceC: await deps.ledger.getBalance(userId, tx),
            };
        }
        const lease = await repo.lockLease(id, tx);
        if (!lease || lease.userId !== userId) throw renewErrors.notFound();
        if (!isRenewable(lease, now())) throw renewErrors.notRenewable();
        let renewed: Awaited<ReturnType<typeof renewLocked>>;
        try {
          renewed = await renewLocked({ ...deps, agents }, lease, tx);
        } catch (e) {
          // Someone else holds the agent now (it lapsed, or its kind is full): not renewable.
          if (isSaleRefusal(e)) throw renewErrors.notRenewable();
          throw e;
        }
        if (idemKey) await sales.record({ userId, idemKey }, { leaseId: id, priceC: renewed.priceC }, tx);
        return { priceC: renewed.priceC, balanceC: renewed.balanceC };
      });
      return { status: 'RENEW_STATUS_RENEWED', ...done, lease: await deps.leases.getLease(id) };
    },
  };
}

/** The renew service's functions. */
export type RenewService = ReturnType<typeof createRenewService>;
