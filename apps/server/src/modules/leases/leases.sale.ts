import { AppError, type PurchaseErrorCode, type TLease } from '@pm/contracts';
import type { Db } from '@pm/db';
import type { Cents } from '@pm/money';
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '../../platform/db.ts';
import type { SaleAsk, SaleQuote } from '../agents/agents.sale.ts';
import type { AgentsService } from '../agents/agents.service.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import { type SaleKeyService, saleFingerprint, saleKeyErrors } from '../sales/sales.service.ts';
import type { LeaseService } from './leases.service.ts';

/** What the sale path is built from. */
export interface SaleServiceDeps {
  db: Db;
  agents: Pick<AgentsService, 'reserveForSale' | 'checkForSale' | 'markSold'>;
  ledger: Pick<LedgerService, 'charge'>;
  leases: Pick<LeaseService, 'insertLease' | 'getLease'>;
  /** The sale kernel: the Idempotency-Key records and the turns of one agent's sales. */
  saleKeys: Pick<SaleKeyService, 'claim' | 'findPrior' | 'record' | 'inTurn'>;
}

/** A lease to sell: from the shop (`purchase`, private or shared) or the static shop (`static`, private). */
export interface LeaseSaleRequest {
  kind: 'purchase' | 'static';
  agentId: string;
  exc: boolean;
  /** The price the buyer saw; another price now is 409 priceChanged. */
  expPriceC: Cents;
  /** The client's `Idempotency-Key`: the same key answers the same lease and is never charged twice. */
  idemKey?: string | undefined;
}

/** The sale service's functions. */
export type SaleService = ReturnType<typeof createSaleService>;

const refused = (errorCode: PurchaseErrorCode, userMessage: string, extra: Record<string, unknown> = {}) =>
  new AppError('CONFLICT', { userMessage, details: { errorCode, ...extra } });

/** Refusals of the sale path beyond the agent's own (agents.sale.ts). */
export const saleRequestErrors = {
  /** The shop's answer carries both current prices, the static shop's the one it sells at. */
  priceChanged: (kind: LeaseSaleRequest['kind'], q: SaleQuote) =>
    refused(
      'priceChanged',
      'The price of this proxy has changed.',
      kind === 'static' ? { priceC: q.priceExcC } : { priceExcC: q.priceExcC, priceShrC: q.priceShrC },
    ),
  idempotencyKeyReused: saleKeyErrors.idempotencyKeyReused,
};

/** The fingerprint of a lease sale: what makes a retry the same request. */
export const leaseSaleFingerprint = (r: LeaseSaleRequest) =>
  saleFingerprint(r.kind, [r.agentId, r.exc, r.expPriceC]);

/**
 * The one sale path of a lease (`POST /leases`, `POST /static/lease`, Buy Again): the agent
 * reserved under its row lock with the one availability rule (`agents.reserveForSale`), the price
 * checked, the lease inserted, the customer charged (`ledger.charge`: 402 short or no account, 403
 * blocked) and the sale recorded, in one transaction or not at all. Renewals reserve and charge
 * through the same two calls (`leases.renew.ts`).
 */
export function createSaleService(deps: SaleServiceDeps) {
  const { saleKeys } = deps;
  const askOf = (userId: string, r: LeaseSaleRequest): SaleAsk => ({
    exc: r.exc,
    static: r.kind === 'static',
    userId,
  });

  function checkPrice(r: LeaseSaleRequest, q: SaleQuote): void {
    if (q.priceC !== r.expPriceC) throw saleRequestErrors.priceChanged(r.kind, q);
  }

  /** The sale's transaction; returns the lease's id (a replayed key's lease included). */
  async function sellIn(userId: string, r: LeaseSaleRequest): Promise<string> {
    return deps.db.transaction(async (tx) => {
      const key = r.idemKey && {
        userId,
        idemKey: r.idemKey,
        kind: r.kind,
        fingerprint: leaseSaleFingerprint(r),
      };
      if (key) {
        const prior = await saleKeys.claim(key, tx);
        if (prior?.leaseId) return prior.leaseId;
      }
      const quote = await deps.agents.reserveForSale(r.agentId, askOf(userId, r), tx);
      checkPrice(r, quote);
      const lease = await deps.leases.insertLease(
        {
          userId,
          agentId: r.agentId,
          exc: r.exc,
          static: r.kind === 'static',
          purchasePriceC: quote.priceC,
          reservation: quote,
        },
        tx,
      );
      const memo =
        r.kind === 'static'
          ? `Static lease ${lease.id} (${quote.agent.ip})`
          : `Lease ${lease.id} (${r.exc ? 'private' : 'shared'}, ${quote.agent.ip})`;
      // The key's row (claimed above, under its primary key) is what makes a retry charge nothing.
      await deps.ledger.charge({ userId, amountC: quote.priceC, type: 'purchase', memo }, tx);
      if (key) await saleKeys.record(key, { leaseId: lease.id, priceC: quote.priceC }, tx);
      await deps.agents.markSold(r.agentId, tx);
      return lease.id;
    });
  }

  /** The lease an earlier sale under the key sold, when the request is the same; undefined when none. */
  async function findReplay(userId: string, r: LeaseSaleRequest): Promise<string | undefined> {
    if (!r.idemKey) return undefined;
    const prior = await saleKeys.findPrior({
      userId,
      idemKey: r.idemKey,
      kind: r.kind,
      fingerprint: leaseSaleFingerprint(r),
    });
    return prior?.leaseId ?? undefined;
  }

  return {
    /**
     * Sells a lease to `userId`. Before any lock the same rule and the price are checked on a plain
     * read (a race's losers are told at once), then `beforeSale` runs (the purchase's probe, outside
     * the lock), then the sale takes its turn on the agent. With `idemKey` an earlier sale under the
     * key is answered again (its lease, no second charge), also to a twin sent in parallel. Throws
     * CONFLICT agentNotFound, agentAlreadyLeased (also when the buyer already holds a lease on the
     * agent), priceChanged, idempotencyKeyReused; PAYMENT_REQUIRED; FORBIDDEN accountBlocked.
     */
    async sellLease(
      userId: string,
      r: LeaseSaleRequest,
      hooks: { beforeSale?: (quote: SaleQuote) => Promise<void> } = {},
    ): Promise<TLease> {
      const replayed = await findReplay(userId, r);
      if (replayed) return deps.leases.getLease(replayed);
      try {
        const check = () => deps.agents.checkForSale(r.agentId, askOf(userId, r), r.expPriceC);
        const quote = await check();
        checkPrice(r, quote);
        await hooks.beforeSale?.(quote);
        // An earlier sale of the agent in this process ran while this one waited its turn: the
        // plain read sees it committed, and a loser of the race is refused without a transaction.
        const sellInTurn = async (waited: boolean) => {
          if (waited) checkPrice(r, await check());
          return sellIn(userId, r);
        };
        // A random lease id or SOCKS user may collide (astronomically rarely): sell again with fresh ones.
        for (let attempt = 0; ; attempt++) {
          try {
            return await deps.leases.getLease(await saleKeys.inTurn(r.agentId, sellInTurn));
          } catch (e) {
            if (attempt >= 2 || pgErrorCode(e) !== PG_UNIQUE_VIOLATION) throw e;
          }
        }
      } catch (e) {
        // A twin under the same key sold first (this one then finds the buyer holding the agent).
        const twin = e instanceof AppError && e.code === 'CONFLICT' ? await findReplay(userId, r) : undefined;
        if (twin) return deps.leases.getLease(twin);
        throw e;
      }
    },
  };
}
