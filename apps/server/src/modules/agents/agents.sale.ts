import { AppError, MAX_SHARED_LEASES } from '@pm/contracts';
import type { Cents } from '@pm/money';
import type { AgentRow } from './agents.repository.ts';

/** What a sale asks of an agent: the kind of lease, for whom, and (for a renewal) the lease it extends. */
export interface SaleAsk {
  /** Private (exclusive) when true, shared otherwise. */
  exc: boolean;
  /** A static lease (the static shop's agents only); false for the shop's agents. */
  static: boolean;
  /** The buyer: one customer holds at most one active lease on an agent. */
  userId: string;
  /**
   * A renewal of this lease: it is left out of the counts (its own slot), and the agent need not
   * be online (a renewal keeps what the customer already holds).
   */
  renewing?: string | undefined;
}

/** The active leases on an agent (ACTIVE_LEASE), by kind, and whether the buyer holds one. */
export interface ActiveOnAgent {
  shared: number;
  exclusive: number;
  heldByBuyer: boolean;
}

/** One agent reserved for a sale under its row lock, priced with the rules the sale's transaction reads. */
export interface SaleQuote {
  agent: AgentRow;
  priceExcC: Cents;
  priceShrC: Cents;
  /** The price of the kind asked (`priceExcC` or `priceShrC`). */
  priceC: Cents;
  activeShared: number;
  activeExclusive: number;
  /** Not sold in the last 30 days (the price may depend on it). */
  isNew: boolean;
}

export type SaleRefusal = 'agentNotFound' | 'agentAlreadyLeased';

/** The refusals every sale answers (409, rules §7 and 8). */
export const saleErrors = {
  agentNotFound: () =>
    new AppError('CONFLICT', {
      userMessage: 'This proxy is currently offline.',
      details: { errorCode: 'agentNotFound' },
    }),
  agentAlreadyLeased: (mine = false) =>
    new AppError('CONFLICT', {
      userMessage: mine
        ? 'You already hold a lease on this proxy.'
        : 'This proxy is currently purchased and unavailable.',
      details: { errorCode: 'agentAlreadyLeased' },
    }),
};

/**
 * Whether an agent with these active leases is full for the kind asked: a private lease needs
 * none at all, a shared one needs no private lease and fewer than 4 shared (rules §4, 9).
 */
export function isAgentFull(exc: boolean, active: { shared: number; exclusive: number }): boolean {
  return exc
    ? active.shared + active.exclusive > 0
    : active.exclusive > 0 || active.shared >= MAX_SHARED_LEASES;
}

/**
 * The one availability rule of every sale, in this order: the agent is unknown, of the other shop
 * (static or not), never connected or offline (a renewal may be offline) -> agentNotFound; the
 * buyer already holds an active lease on it -> agentAlreadyLeased; full for the kind asked ->
 * agentAlreadyLeased. Undefined when it can be sold.
 */
export function findSaleRefusal(
  agent: AgentRow | undefined,
  active: ActiveOnAgent,
  ask: SaleAsk,
): { refusal: SaleRefusal; mine: boolean } | undefined {
  if (!agent || agent.isStatic !== ask.static || agent.nodeId === null)
    return { refusal: 'agentNotFound', mine: false };
  if (!agent.online && ask.renewing === undefined) return { refusal: 'agentNotFound', mine: false };
  if (active.heldByBuyer) return { refusal: 'agentAlreadyLeased', mine: true };
  if (isAgentFull(ask.exc, active)) return { refusal: 'agentAlreadyLeased', mine: false };
  return undefined;
}

/** The refusal as the error a sale throws. */
export function saleRefusalError(r: { refusal: SaleRefusal; mine: boolean }): AppError {
  return r.refusal === 'agentNotFound' ? saleErrors.agentNotFound() : saleErrors.agentAlreadyLeased(r.mine);
}
