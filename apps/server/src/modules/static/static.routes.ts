import { ENDPOINTS } from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import { registerEndpoint } from '../../platform/endpoint.ts';
import { wantsFresh } from '../../platform/fresh.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { StaticService } from './static.service.ts';

/** The static shop: `GET /static/list/` and `POST /static/lease`. */
export function registerStaticRoutes(app: ApiApp, deps: { staticShop: StaticService }) {
  registerEndpoint(app, ENDPOINTS.listStaticAgents, {
    handler: async (req, { query }) => deps.staticShop.listStatic(query, { fresh: wantsFresh(req) }),
  });

  registerEndpoint(app, ENDPOINTS.leaseStaticAgent, {
    rateLimit: { max: 30, timeWindow: 60_000 },
    handler: async (req, { body, headers }) =>
      deps.staticShop.leaseStatic(getPrincipal(req).userId, body, headers['idempotency-key']),
  });
}
