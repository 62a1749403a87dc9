import { ENDPOINTS, ZAgentNoteBody, ZAgentNoteParams, ZErrorBody } from '@pm/contracts';
import { z } from 'zod';
import { getPrincipal } from '../../platform/auth.ts';
import { registerEndpoint } from '../../platform/endpoint.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { PurchaseService } from './leases.purchase.ts';
import type { LeaseService } from './leases.service.ts';

const errors = { 400: ZErrorBody, 401: ZErrorBody, 404: ZErrorBody, 409: ZErrorBody, 429: ZErrorBody };

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
    handler: async (req, { body, headers }, reply) => {
      const lease = await deps.purchases.purchaseLease(
        getPrincipal(req).userId,
        body,
        headers['idempotency-key'],
      );
      return reply.code(201).send(lease);
    },
  });

  registerEndpoint(app, ENDPOINTS.listLeases, {
    handler: async (req, { query }) => deps.leases.listActiveLeases(getPrincipal(req).userId, query),
  });

  registerEndpoint(app, ENDPOINTS.setAutoRenew, {
    rateLimit: { max: 60, timeWindow: 60_000 },
    handler: async (req, { params, query }) =>
      deps.leases.setAutoRenew(getPrincipal(req).userId, params.id, query.set),
  });

  app.put(
    '/agentnotes/:agentId',
    {
      config: { auth: 'user', rateLimit: { max: 60, timeWindow: 60_000 } },
      schema: {
        tags: ['leases'],
        params: ZAgentNoteParams,
        body: ZAgentNoteBody,
        response: { 204: z.null(), ...errors },
      },
    },
    async (req, reply) => {
      await deps.leases.setAgentNote(getPrincipal(req).userId, req.params.agentId, req.body.note);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/agentnotes/:agentId',
    {
      config: { auth: 'user', rateLimit: { max: 60, timeWindow: 60_000 } },
      schema: { tags: ['leases'], params: ZAgentNoteParams, response: { 204: z.null(), ...errors } },
    },
    async (req, reply) => {
      await deps.leases.deleteAgentNote(getPrincipal(req).userId, req.params.agentId);
      return reply.code(204).send(null);
    },
  );
}
