import { ENDPOINTS } from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import { registerEndpoint } from '../../platform/endpoint.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { PricingService } from './pricing.service.ts';

/** `GET|PUT /pricing/rules` (staff): the ordered price list the shop and purchases use. */
export function registerPricingRoutes(
  app: ApiApp,
  deps: { pricing: Pick<PricingService, 'getRules' | 'replaceRules'> },
): void {
  registerEndpoint(app, ENDPOINTS.getPricingRules, {
    handler: async () => deps.pricing.getRules(),
  });

  registerEndpoint(app, ENDPOINTS.replacePricingRules, {
    rateLimit: { max: 30, timeWindow: 60_000 },
    handler: async (req, { body }) => deps.pricing.replaceRules(body.rules, getPrincipal(req).userId),
  });
}
