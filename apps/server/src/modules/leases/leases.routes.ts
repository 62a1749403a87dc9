import { ENDPOINTS } from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import { registerEndpoint } from '../../platform/endpoint.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { PurchaseService } from './leases.purchase.ts';
import type { LeaseService } from './leases.service.ts';

/** The customer's lease routes: purchase, the active list, auto-renew, and notes on agents. */
export function registerLeasesRoutes(
  app: ApiApp,
  deps: {
    leases: Pick<LeaseService, 'listActiveLeases' | 'setAutoRenew' | 'setAgentNote' | 'deleteAgentNote'>;
    purchases: Pick<PurchaseService, 'purchaseLease'>;
  },
) {
  // These three are also served under /api (public API, ENDPOINTS' visibility 'public').
  registerEndpoint(app, ENDPOINTS.createLease, {
    // A person buys a few proxies a minute at most; each attempt may cost a probe.
    rateLimit: { max: 30, timeWindow: 60_000 },
    handler: async (req, { body, headers }) =>
      deps.purchases.purchaseLease(getPrincipal(req).userId, body, headers['idempotency-key']),
  });

  registerEndpoint(app, ENDPOINTS.listLeases, {
    handler: async (req, { query }) => deps.leases.listActiveLeases(getPrincipal(req).userId, query),
  });

  registerEndpoint(app, ENDPOINTS.setAutoRenew, {
    rateLimit: { max: 60, timeWindow: 60_000 },
    handler: async (req, { params, query }) =>
      deps.leases.setAutoRenew(getPrincipal(req).userId, params.id, query.set),
  });

  registerEndpoint(app, ENDPOINTS.setAgentNote, {
    rateLimit: { max: 60, timeWindow: 60_000 },
    handler: async (req, { params, body }) => {
      await deps.leases.setAgentNote(getPrincipal(req).userId, params.agentId, body.note);
      return null;
    },
  });

  registerEndpoint(app, ENDPOINTS.deleteAgentNote, {
    rateLimit: { max: 60, timeWindow: 60_000 },
    handler: async (req, { params }) => {
      await deps.leases.deleteAgentNote(getPrincipal(req).userId, params.agentId);
      return null;
    },
  });
}
