import {
  AppError,
  type LeaseChange,
  type PurchaseErrorCode,
  type TLease,
  type ZLeasePurchaseBody,
} from '@pm/contracts';
import type { DbOrTx } from '@pm/db';
import type { z } from 'zod';
import type { ChangeFeed } from '../../platform/changes.ts';
import type { SaleQuote } from '../agents/agents.sale.ts';
import type { ProbeService } from '../probes/probes.service.ts';
import { findExitChanges } from './leases.changes.ts';
import type { SaleService } from './leases.sale.ts';

/** What the purchase is built from: the sale path and the probe. */
export interface PurchaseServiceDeps {
  sales: Pick<SaleService, 'sellLease'>;
  probes: Pick<ProbeService, 'probeAgent'>;
  /** Where a refused probe's news goes: the agent as shown is read anew (topic `agent`). */
  db: DbOrTx;
  changes: Pick<ChangeFeed, 'publish'>;
}

/** The purchase service's functions (derived from the factory). */
export type PurchaseService = ReturnType<typeof createPurchaseService>;

/** A purchase as the route passes it (the parsed body: `probe` defaulted, `expPriceC` in Cents). */
export type PurchaseInput = z.output<typeof ZLeasePurchaseBody>;

const refused = (errorCode: PurchaseErrorCode, userMessage: string, extra: Record<string, unknown> = {}) =>
  new AppError('CONFLICT', { userMessage, details: { errorCode, ...extra } });

/** The probe's refusals (rules §7 and 8); the sale path's own are in agents.sale.ts and leases.sale.ts. */
export const purchaseErrors = {
  probeErrAgent: () => refused('probeErrAgent', 'The proxy is not responding.'),
  agentInfoChanged: (changes: LeaseChange[]) =>
    refused('agentInfoChanged', "The proxy's parameters have changed.", { changes }),
};

/**
 * `POST /leases` (and Buy Again): a private or shared 24-hour lease of a shop agent, sold through
 * the one sale path (`sales.sellLease`); with `probe` the agent is first tested through its gateway
 * node, after the plain-read checks and outside the agent's lock.
 */
export function createPurchaseService(deps: PurchaseServiceDeps) {
  /** Tests the agent through its node; refuses when it does not answer or its exit is not what was shown. */
  async function probeBeforeSale(quote: SaleQuote): Promise<void> {
    const { agent } = quote;
    const outcome = await deps.probes.probeAgent(agent.id, agent.nodeId!);
    const changes = outcome.ok && outcome.observed ? findExitChanges(agent, outcome.observed) : [];
    if (outcome.ok && changes.length === 0) return;
    // The gateway has already updated the agent row to what it saw (or marked it down); the buyer
    // reloads it, so no process may answer it from its shared window.
    await deps.changes.publish('agent', deps.db, agent.id);
    if (!outcome.ok) throw purchaseErrors.probeErrAgent();
    throw purchaseErrors.agentInfoChanged(changes);
  }

  return {
    /**
     * Buys a lease for `userId`. Throws CONFLICT with `errorCode` agentNotFound, agentAlreadyLeased
     * (full, or the buyer already holds a lease on the agent), priceChanged (with the current
     * prices), probeErrAgent, agentInfoChanged (with `changes`) or idempotencyKeyReused;
     * PAYMENT_REQUIRED when the balance is short; FORBIDDEN accountBlocked. A refusal changes
     * nothing; the same `idemKey` answers the first lease again.
     */
    async purchaseLease(userId: string, input: PurchaseInput, idemKey?: string): Promise<TLease> {
      return deps.sales.sellLease(
        userId,
        { kind: 'purchase', agentId: input.agentID, exc: input.exc, expPriceC: input.expPriceC, idemKey },
        input.probe ? { beforeSale: probeBeforeSale } : {},
      );
    },
  };
}
