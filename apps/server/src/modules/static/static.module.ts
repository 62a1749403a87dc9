import { defineModule, type Platform } from '../../platform/module.ts';
import type { SaleService } from '../leases/leases.sale.ts';
import type { PricingService } from '../pricing/pricing.service.ts';
import { registerStaticRoutes } from './static.routes.ts';
import { createStaticService } from './static.service.ts';

/** The static-proxy shop: agents marked static (`agents.is_static`), listed by country and leased private for 24 hours. */
export const staticModule = defineModule({
  name: 'static',
  needs: ['pricing', 'sales'],
  services: (
    platform: Platform,
    deps: {
      pricing: Pick<PricingService, 'currentRules' | 'loadRules' | 'priceAgent'>;
      sales: Pick<SaleService, 'sellLease'>;
    },
  ) => ({
    staticShop: createStaticService({
      db: platform.db.db,
      ...deps,
      now: platform.now,
      cacheMs: platform.settings.shopCacheMs,
      changes: platform.changes,
    }),
  }),
  routes: registerStaticRoutes,
});
