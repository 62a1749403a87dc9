import { AppError, type TLease, type TStaticListResponse, type ZStaticListQuery } from '@pm/contracts';
import type { Db, Tx } from '@pm/db';
import type { Cents } from '@pm/money';
import type { z } from 'zod';
import { isNewAgent } from '../agents/agents.mapper.ts';
import type { LeaseService } from '../leases/leases.service.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import type { PriceRule } from '../pricing/pricing.rules.ts';
import type { PricingService } from '../pricing/pricing.service.ts';
import { createStaticRepository, type StaticAgentRow } from './static.repository.ts';

/** What the static shop is built from. */
export interface StaticServiceDeps {
  db: Db;
  pricing: Pick<PricingService, 'currentRules' | 'loadRules' | 'priceAgent'>;
  ledger: Pick<LedgerService, 'move'>;
  leases: Pick<LeaseService, 'insertLease' | 'getLease'>;
  now?: () => number;
}

const refused = (errorCode: string, userMessage: string, extra: Record<string, unknown> = {}) =>
  new AppError('CONFLICT', { userMessage, details: { errorCode, ...extra } });

/** The static shop's functions. */
export type StaticService = ReturnType<typeof createStaticService>;

/**
 * The static-proxy shop: agents the operator marked static, sold private for 24 hours at the
 * private price the pricing rules give them (the same rules as the shop: country, conn, stars, New).
 */
export function createStaticService(deps: StaticServiceDeps) {
  const now = deps.now ?? Date.now;
  const repo = createStaticRepository(deps.db);
  const priceOf = (rules: readonly PriceRule[], a: StaticAgentRow): Cents =>
    deps.pricing.priceAgent(rules, { ...a, isNew: isNewAgent(a.lastSoldAt, now()) }).priceExcC;

  return {
    /** `GET /static/list/`: static agents of a country on sale (online, not leased), filtered, with the total. */
    async listStatic(q: z.output<typeof ZStaticListQuery>): Promise<TStaticListResponse> {
      const { rows, total } = await repo.findPage(q, { offset: q.cursor, limit: q.limit });
      const rules = await deps.pricing.currentRules();
      return {
        list: rows.map((a) => ({
          id: a.id,
          ip: a.ip,
          loc: { city: a.city, isp: a.isp },
          conn: a.conn,
          priceC: priceOf(rules, a),
        })),
        total,
      };
    },

    /**
     * `POST /static/lease`: a private 24-hour lease of a static agent, in one transaction under the
     * agent's row lock (rules, lease row, ledger 'purchase' debit) or nothing. CONFLICT
     * agentNotFound (unknown, not static, offline), agentAlreadyLeased, priceChanged (with `priceC`);
     * PAYMENT_REQUIRED when the balance is short.
     */
    async leaseStatic(userId: string, input: { agentID: string; expPriceC: Cents }): Promise<TLease> {
      const leaseId = await deps.db.transaction(async (tx: Tx) => {
        const agent = await repo.lockAgent(input.agentID, tx);
        if (!agent?.isStatic || !agent.online || agent.nodeId === null)
          throw refused('agentNotFound', 'This proxy is currently offline.');
        if (agent.activeExclusive + agent.activeShared > 0)
          throw refused('agentAlreadyLeased', 'This proxy is currently purchased and unavailable.');
        const priceC = priceOf(await deps.pricing.loadRules(tx), agent);
        if (priceC !== input.expPriceC)
          throw refused('priceChanged', 'The price of this proxy has changed.', { priceC });
        const lease = await deps.leases.insertLease(
          { userId, agentId: agent.id, exc: true, static: true, purchasePriceC: priceC },
          tx,
        );
        if (priceC > 0) {
          try {
            await deps.ledger.move(
              {
                userId,
                amountC: -priceC as Cents,
                type: 'purchase',
                memo: `Static lease ${lease.id} (${agent.ip})`,
              },
              tx,
            );
          } catch (e) {
            if (e instanceof AppError && e.code === 'NOT_FOUND')
              throw new AppError('PAYMENT_REQUIRED', { cause: e });
            throw e;
          }
        }
        return lease.id;
      });
      return deps.leases.getLease(leaseId);
    },
  };
}
