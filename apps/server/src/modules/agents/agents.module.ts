import { defineModule, type Platform } from '../../platform/module.ts';
import type { PricingService } from '../pricing/pricing.service.ts';
import { registerAgentsRoutes } from './agents.routes.ts';
import { createAgentsService } from './agents.service.ts';

/**
 * The shop's read side: `GET /agents` (filters, segments, paging), `GET /agents/{id}`,
 * `GET /totals/agents`, and for every sale `agents.reserveForSale` (the one availability rule under
 * the agent's lock), `agents.checkForSale` and `agents.markSold`.
 */
export const agentsModule = defineModule({
  name: 'agents',
  needs: ['pricing'],
  services: (
    platform: Platform,
    { pricing }: { pricing: Pick<PricingService, 'currentRules' | 'loadRules' | 'priceAgent'> },
  ) => ({
    agents: createAgentsService({
      db: platform.db.db,
      pricing,
      now: platform.now,
      cacheMs: platform.settings.shopCacheMs,
      changes: platform.changes,
    }),
  }),
  routes: registerAgentsRoutes,
});
