import { AppError, type LeaseChange, type TLease, type ZLeasePurchaseBody } from '@pm/contracts';
import type { Db } from '@pm/db';
import type { Cents } from '@pm/money';
import type { z } from 'zod';
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '../../platform/db.ts';
import type { AgentsService, PurchaseQuote } from '../agents/agents.service.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import type { ProbeService } from '../probes/probes.service.ts';
import { findExitChanges } from './leases.changes.ts';
import { isAgentFull, type LeaseService } from './leases.service.ts';

/** What the purchase is built from: the services it calls, each as narrow as it can be. */
export interface PurchaseServiceDeps {
  db: Db;
  ledger: Pick<LedgerService, 'move'>;
  agents: Pick<AgentsService, 'quoteForPurchase' | 'markSold'>;
  leases: Pick<LeaseService, 'findSaleRefusal' | 'insertLease' | 'getLease'>;
  probes: Pick<ProbeService, 'probeAgent'>;
}

/** The purchase service's functions (derived from the factory). */
export type PurchaseService = ReturnType<typeof createPurchaseService>;

/** A purchase as the route passes it (the parsed body: `probe` defaulted, `expPriceC` in Cents). */
export type PurchaseInput = z.output<typeof ZLeasePurchaseBody>;

const refused = (errorCode: string, userMessage: string, extra: Record<string, unknown> = {}) =>
  new AppError('CONFLICT', { userMessage, details: { errorCode, ...extra } });

/** Purchase refusals (SPEC 7 and 8); `errorCode` is one of PURCHASE_ERROR_CODES. */
export const purchaseErrors = {
  agentNotFound: () => refused('agentNotFound', 'This proxy is currently offline.'),
  alreadyLeased: () => refused('agentAlreadyLeased', 'This proxy is currently purchased and unavailable.'),
  priceChanged: (q: PurchaseQuote) =>
    refused('priceChanged', 'The price of this proxy has changed.', {
      priceExcC: q.priceExcC,
      priceShrC: q.priceShrC,
    }),
  probeErrAgent: () => refused('probeErrAgent', 'The proxy is not responding.'),
  agentInfoChanged: (changes: LeaseChange[]) =>
    refused('agentInfoChanged', "The proxy's parameters have changed.", { changes }),
};

/**
 * The price the buyer pays if the agent can be sold as asked; throws the refusal otherwise. In
 * this order: unknown, static, never connected or offline; full for the kind asked; price moved.
 */
function priceForSale(quote: PurchaseQuote | undefined, input: PurchaseInput): Cents {
  if (!quote?.agent.online) throw purchaseErrors.agentNotFound();
  const active = { shared: quote.activeShared, exclusive: quote.activeExclusive };
  if (isAgentFull(input.exc, active)) throw purchaseErrors.alreadyLeased();
  const priceC = input.exc ? quote.priceExcC : quote.priceShrC;
  if (priceC !== input.expPriceC) throw purchaseErrors.priceChanged(quote);
  return priceC;
}

/**
 * Runs calls with the same key one after another (each after the previous one settled). Purchases
 * of one agent take their turn here, in memory, rather than each holding a pool connection while
 * it waits for the agent's row lock: a race on one agent would otherwise take every connection.
 */
function createTurns() {
  const tails = new Map<string, Promise<unknown>>();
  return async function inTurn<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const result = (tails.get(key) ?? Promise.resolve()).then(fn, fn);
    const tail = result.catch(() => {});
    tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}

/**
 * `POST /leases`: sells a private or shared 24-hour lease of an agent. The sale is one
 * transaction under the agent's row lock (the rules, the lease row, the ledger debit whose memo
 * names the lease, the last-sold time), or nothing; with `probe` the agent is first tested
 * through its gateway node, outside the lock.
 */
export function createPurchaseService(deps: PurchaseServiceDeps) {
  const inTurn = createTurns();

  /** The sale under the agent's lock; returns the new lease's id (read back after commit). */
  async function sell(userId: string, input: PurchaseInput): Promise<string> {
    return deps.db.transaction(async (tx) => {
      const quote = await deps.agents.quoteForPurchase(input.agentID, tx);
      const priceC = priceForSale(quote, input);
      const lease = await deps.leases.insertLease(
        { userId, agentId: input.agentID, exc: input.exc, purchasePriceC: priceC },
        tx,
      );
      // A free lease moves no money, and the ledger refuses a zero move.
      if (priceC > 0) {
        const memo = `Lease ${lease.id} (${input.exc ? 'private' : 'shared'}, ${quote!.agent.ip})`;
        try {
          await deps.ledger.move({ userId, amountC: -priceC as Cents, type: 'purchase', memo }, tx);
        } catch (e) {
          // No account yet is a balance of zero.
          if (e instanceof AppError && e.code === 'NOT_FOUND')
            throw new AppError('PAYMENT_REQUIRED', { cause: e });
          throw e;
        }
      }
      await deps.agents.markSold(input.agentID, tx);
      return lease.id;
    });
  }

  /** Tests the agent through its node; refuses when it does not answer or its exit is not what was shown. */
  async function probeBeforeSale(input: PurchaseInput): Promise<void> {
    // What the shop shows now, checked first so a sale that cannot happen costs no probe.
    const quote = await deps.db.transaction(async (tx) => {
      const q = await deps.agents.quoteForPurchase(input.agentID, tx);
      priceForSale(q, input);
      return q!;
    });
    const { agent } = quote;
    const outcome = await deps.probes.probeAgent(agent.id, agent.nodeId!);
    if (!outcome.ok) throw purchaseErrors.probeErrAgent();
    // The gateway has already updated the agent row to what it saw; the buyer reloads it.
    const changes = outcome.observed ? findExitChanges(agent, outcome.observed) : [];
    if (changes.length > 0) throw purchaseErrors.agentInfoChanged(changes);
  }

  return {
    /**
     * Buys a lease for `userId`. Throws CONFLICT with `errorCode` agentNotFound, agentAlreadyLeased,
     * priceChanged (with the current prices), probeErrAgent or agentInfoChanged (with `changes`),
     * and PAYMENT_REQUIRED when the balance is short; a refusal changes nothing.
     */
    async purchaseLease(userId: string, input: PurchaseInput): Promise<TLease> {
      // The race's losers are told at once instead of queueing for the agent's lock.
      const refusal = await deps.leases.findSaleRefusal(input.agentID, input.exc);
      if (refusal) throw purchaseErrors[refusal === 'agentNotFound' ? 'agentNotFound' : 'alreadyLeased']();
      if (input.probe) await probeBeforeSale(input);
      // A random lease id or SOCKS user may collide (astronomically rarely): sell again with fresh ones.
      for (let attempt = 0; ; attempt++) {
        try {
          return await deps.leases.getLease(await inTurn(input.agentID, () => sell(userId, input)));
        } catch (e) {
          if (attempt >= 2 || pgErrorCode(e) !== PG_UNIQUE_VIOLATION) throw e;
        }
      }
    },
  };
}
