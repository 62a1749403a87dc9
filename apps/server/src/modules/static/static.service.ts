import type { TLease, TStaticListResponse, ZStaticListQuery } from '@pm/contracts';
import type { Db } from '@pm/db';
import type { Cents } from '@pm/money';
import type { z } from 'zod';
import type { ChangeFeed } from '../../platform/changes.ts';
import { createTtlCache } from '../../platform/ttl-cache.ts';
import { isNewAgent } from '../agents/agents.mapper.ts';
import { shopWindow } from '../agents/agents.service.ts';
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
  /** How long a page is shared between callers: the shop's window (`shopWindow`). */
  cacheMs?: number | undefined;
  /** Every sale (topic `shop`) clears the pages: this process's at once, the others' at the commit. */
  changes?: Pick<ChangeFeed, 'onChange'> | undefined;
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
  // A page and its total, shared like the shop's (the count of a country's static agents is the slow part).
  type Page = Awaited<ReturnType<typeof repo.findPage>>;
  const pages = createTtlCache<Page>({ ...shopWindow(deps.cacheMs), maxEntries: 1000 });
  deps.changes?.onChange('shop', () => pages.clear());
  const priceOf = (rules: readonly PriceRule[], a: StaticAgentRow): Cents =>
    deps.pricing.priceAgent(rules, { ...a, isNew: isNewAgent(a.lastSoldAt, now()) }).priceExcC;

  return {
    /**
     * `GET /static/list/`: static agents of a country on sale (online, not leased), filtered, with
     * the total; shared between callers for `cacheMs`, `fresh` reads it anew.
     */
    async listStatic(
      q: z.output<typeof ZStaticListQuery>,
      o: { fresh?: boolean } = {},
    ): Promise<TStaticListResponse> {
      const key = JSON.stringify([q.cc, q.conn, q.isp, q.city, q.ip, q.cursor, q.limit]);
      const load = () => repo.findPage(q, { offset: q.cursor, limit: q.limit, atMs: now() });
      const { rows, total } = await pages.get(key, load, o);
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
