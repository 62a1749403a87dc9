import { AppError, type TPricingRule, type TPricingRules } from '@pm/contracts';
import type { Db, DbOrTx } from '@pm/db';
import type { ChangeFeed } from '../../platform/changes.ts';
import { createTtlCache } from '../../platform/ttl-cache.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { createPriceTableAudit } from './pricing.audit.ts';
import { createPricingRepository, type PricingRuleRow } from './pricing.repository.ts';
import { type AgentPrices, type PricedAgent, type PriceRule, priceFor } from './pricing.rules.ts';

/** What the pricing service is built from. */
export interface PricingServiceDeps {
  db: Db;
  /** How long this process prices the shop from the list it read last; default 1000 ms. */
  cacheMs?: number | undefined;
  /** Cross-process invalidation: a saved list clears every process's copy after the commit. */
  changes?: Pick<ChangeFeed, 'publish' | 'onChange'> | undefined;
  /** Where a staff replacement of the list is recorded; default: the audit service on `db`. */
  audit?: Pick<AuditService, 'record'> | undefined;
}

/** The pricing service's functions (derived from the factory). */
export type PricingService = ReturnType<typeof createPricingService>;

function toRule(row: PricingRuleRow): PriceRule {
  return {
    position: row.position,
    cc: row.cc,
    conn: row.conn,
    minStars: row.minStars,
    maxStars: row.maxStars,
    fresh: row.fresh,
    priceExcC: row.priceExcC,
    priceShrC: row.priceShrC,
    note: row.note,
  };
}

/** The operator's price list: read and replaced by staff, applied to every agent the shop shows or sells. */
export function createPricingService(deps: PricingServiceDeps) {
  const repo = createPricingRepository(deps.db);
  const audited = createPriceTableAudit(deps);
  const cache = createTtlCache<PriceRule[]>({ ttlMs: deps.cacheMs ?? 1000, maxEntries: 1 });
  deps.changes?.onChange('pricing', () => cache.clear());

  async function loadRules(tx?: DbOrTx): Promise<PriceRule[]> {
    const rules = (await repo.findRules(tx)).map(toRule);
    // The migration seeds a list and replaceRules never stores an empty one; this is a hand-edited table.
    if (rules.length === 0) throw new AppError('INTERNAL', { message: 'pricing_rules is empty' });
    return rules;
  }

  async function getRules(tx?: DbOrTx): Promise<TPricingRules> {
    const rows = await repo.findRules(tx);
    const latest = rows.reduce<PricingRuleRow | undefined>(
      (a, r) => (a === undefined || r.updatedAt > a.updatedAt ? r : a),
      undefined,
    );
    return {
      rules: rows.map(toRule),
      updatedAt: latest?.updatedAt.toISOString() ?? null,
      updatedBy: latest?.updatedBy ?? null,
    };
  }

  return {
    /** The current list, position 1 first, with when and by whom it was saved. */
    getRules,

    /**
     * Replaces the whole list in one transaction (validated by the contract: a catch-all last,
     * prices within bounds), audited (`pricing.rules`, the list before and after, in the same
     * transaction), and makes this process price with it at once; the others as soon as they hear
     * the commit's NOTIFY (`cacheMs` at the latest if they missed it).
     */
    async replaceRules(rules: readonly TPricingRule[], updatedBy: string): Promise<TPricingRules> {
      const result = await deps.db.transaction(async (tx) => {
        await audited.replace(tx, {
          action: 'pricing.rules',
          actorId: updatedBy,
          read: async () => (await repo.findRules(tx)).map(toRule),
          write: () =>
            repo.replaceRules(
              rules.map((r, i) => ({ ...r, position: i + 1 })),
              updatedBy,
              tx,
            ),
        });
        await deps.changes?.publish('pricing', tx);
        return getRules(tx);
      });
      cache.clear();
      return result;
    },

    /** The list the shop prices pages with: read at most `cacheMs` ago in this process. */
    async currentRules(): Promise<PriceRule[]> {
      return cache.get('rules', () => loadRules());
    },

    /** The list as the caller's transaction sees it (a purchase prices under its agent lock). */
    loadRules,

    /** The prices of `agent` under `rules`; INTERNAL when no rule matches (the list lost its catch-all). */
    priceAgent(rules: readonly PriceRule[], agent: PricedAgent & { id: string }): AgentPrices {
      const prices = priceFor(rules, agent);
      if (!prices) throw new AppError('INTERNAL', { message: `no pricing rule matches agent ${agent.id}` });
      return prices;
    },

    /** Forgets the cached list (after the table was written outside this service). */
    clearCache(): void {
      cache.clear();
    },
  };
}
