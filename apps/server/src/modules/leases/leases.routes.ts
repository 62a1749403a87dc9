import {
  ZAgentNoteBody,
  ZAgentNoteParams,
  ZAutoRenewQuery,
  ZErrorBody,
  ZIdempotencyKeyHeaders,
  ZLease,
  ZLeaseIdParams,
  ZLeasePurchaseBody,
  ZLeasesQuery,
  ZLeasesResponse,
  ZPurchaseErrorBody,
} from '@pm/contracts';
import { z } from 'zod';
import { getPrincipal } from '../../platform/auth.ts';
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
  app.post(
    '/leases',
    {
      // A person buys a few proxies a minute at most; each attempt may cost a probe.
      config: { auth: 'user', rateLimit: { max: 30, timeWindow: 60_000 } },
      schema: {
        tags: ['leases'],
        headers: ZIdempotencyKeyHeaders,
        body: ZLeasePurchaseBody,
        response: { 201: ZLease, 402: ZErrorBody, 403: ZErrorBody, ...errors, 409: ZPurchaseErrorBody },
      },
    },
    async (req, reply) => {
      const lease = await deps.purchases.purchaseLease(
        getPrincipal(req).userId,
        req.body,
        req.headers['idempotency-key'],
      );
      return reply.code(201).send(lease);
    },
  );

  app.get(
    '/leases',
    {
      config: { auth: 'user' },
      schema: { tags: ['leases'], querystring: ZLeasesQuery, response: { 200: ZLeasesResponse, ...errors } },
    },
    async (req) => deps.leases.listActiveLeases(getPrincipal(req).userId, req.query),
  );

  app.patch(
    '/leases/:id/autoRenew',
    {
      config: { auth: 'user', rateLimit: { max: 60, timeWindow: 60_000 } },
      schema: {
        tags: ['leases'],
        params: ZLeaseIdParams,
        querystring: ZAutoRenewQuery,
        response: { 200: ZLease, ...errors },
      },
    },
    async (req) => deps.leases.setAutoRenew(getPrincipal(req).userId, req.params.id, req.query.set),
  );

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
