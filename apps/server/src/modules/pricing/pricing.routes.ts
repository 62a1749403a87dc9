import { ZErrorBody, ZPricingRules, ZPricingRulesBody } from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { PricingService } from './pricing.service.ts';

const errors = { 400: ZErrorBody, 401: ZErrorBody, 403: ZErrorBody };

/** `GET|PUT /pricing/rules` (staff): the ordered price list the shop and purchases use. */
export function registerPricingRoutes(
  app: ApiApp,
  deps: { pricing: Pick<PricingService, 'getRules' | 'replaceRules'> },
): void {
  app.get(
    '/pricing/rules',
    { config: { auth: 'staff' }, schema: { tags: ['admin'], response: { 200: ZPricingRules, ...errors } } },
    async () => deps.pricing.getRules(),
  );

  app.put(
    '/pricing/rules',
    {
      config: { auth: 'staff', rateLimit: { max: 30, timeWindow: 60_000 } },
      schema: { tags: ['admin'], body: ZPricingRulesBody, response: { 200: ZPricingRules, ...errors } },
    },
    async (req) => deps.pricing.replaceRules(req.body.rules, getPrincipal(req).userId),
  );
}
