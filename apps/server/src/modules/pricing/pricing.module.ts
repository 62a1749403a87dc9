import { defineModule, type Platform } from '../../platform/module.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { registerPricingRoutes } from './pricing.routes.ts';
import { createPricingService } from './pricing.service.ts';

/**
 * The operator's price list (`pricing_rules`): the first rule matching an agent's country,
 * connection, clean score and newness gives its private and shared prices. Staff read and
 * replace it with `GET|PUT /pricing/rules` (each replacement audited, `pricing.audit.ts`, which the
 * ports module's `PUT /pricing/ports` uses too); the shop and purchases price through this service.
 */
export const pricingModule = defineModule({
  name: 'pricing',
  needs: ['audit'],
  services: (platform: Platform, { audit }: { audit: Pick<AuditService, 'record'> }) => ({
    pricing: createPricingService({
      db: platform.db.db,
      cacheMs: platform.settings.shopCacheMs,
      changes: platform.changes,
      audit,
    }),
  }),
  routes: registerPricingRoutes,
});
