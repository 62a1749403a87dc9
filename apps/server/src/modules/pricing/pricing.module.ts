import { defineModule } from '../../platform/module.ts';
import { registerPricingRoutes } from './pricing.routes.ts';
import { createPricingService } from './pricing.service.ts';

/**
 * The operator's price list (`pricing_rules`): the first rule matching an agent's country,
 * connection, clean score and newness gives its private and shared prices. Staff read and
 * replace it with `GET|PUT /pricing/rules`; the shop and purchases price through this service.
 */
export const pricingModule = defineModule({
  name: 'pricing',
  needs: [],
  services: (platform) => ({
    pricing: createPricingService({
      db: platform.db.db,
      cacheMs: platform.settings.shopCacheMs,
      changes: platform.changes,
    }),
  }),
  routes: registerPricingRoutes,
});
