import type { TLease, TStaticListResponse, ZStaticListQuery } from '@pm/contracts';
import type { Db } from '@pm/db';
import type { Cents } from '@pm/money';
import type { z } from 'zod';
import { isNewAgent } from '../agents/agents.mapper.ts';
import type { SaleService } from '../leases/leases.sale.ts';
import type { PriceRule } from '../pricing/pricing.rules.ts';
import type { PricingService } from '../pricing/pricing.service.ts';
import { createStaticRepository, type StaticAgentRow } from './static.repository.ts';

/** What the static shop is built from. */
export interface StaticServiceDeps {
  db: Db;
  pricing: Pick<PricingService, 'currentRules' | 'loadRules' | 'priceAgent'>;
  sales: Pick<SaleService, 'sellLease'>;
  now?: () => number;
}

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
      const { rows, total } = await repo.findPage(q, { offset: q.cursor, limit: q.limit, atMs: now() });
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
     * `POST /static/lease`: a private 24-hour lease of a static agent through the one sale path
     * (`sales.sellLease`, kind static). CONFLICT agentNotFound (unknown, not static, offline),
     * agentAlreadyLeased, priceChanged (with `priceC`), idempotencyKeyReused; PAYMENT_REQUIRED when
     * the balance is short; FORBIDDEN accountBlocked. The same `idemKey` answers the first lease.
     */
    async leaseStatic(
      userId: string,
      input: { agentID: string; expPriceC: Cents },
      idemKey?: string,
    ): Promise<TLease> {
      return deps.sales.sellLease(userId, {
        kind: 'static',
        agentId: input.agentID,
        exc: true,
        expPriceC: input.expPriceC,
        idemKey,
      });
    },
  };
}
