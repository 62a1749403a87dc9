import { defineModule, type Platform } from '../../platform/module.ts';
import type { LeaseService } from '../leases/leases.service.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import type { PricingService } from '../pricing/pricing.service.ts';
import { registerStaticRoutes } from './static.routes.ts';
import { createStaticService } from './static.service.ts';

/** The static-proxy shop: agents marked static (`agents.is_static`), listed by country and leased private for 24 hours. */
export const staticModule = defineModule({
  name: 'static',
  needs: ['pricing', 'ledger', 'leases'],
  services: (
    platform: Platform,
    deps: {
      pricing: Pick<PricingService, 'currentRules' | 'loadRules' | 'priceAgent'>;
      ledger: Pick<LedgerService, 'move'>;
      leases: Pick<LeaseService, 'insertLease' | 'getLease'>;
    },
  ) => ({ staticShop: createStaticService({ db: platform.db.db, ...deps, now: platform.now }) }),
  routes: registerStaticRoutes,
});
