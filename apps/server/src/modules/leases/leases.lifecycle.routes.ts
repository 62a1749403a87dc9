import {
  ENDPOINTS,
  ZErrorBody,
  ZIdempotencyKeyHeaders,
  ZLeaseHistoryQuery,
  ZLeaseHistoryResponse,
  ZLeaseIdParams,
  ZLeaseTrafficResponse,
  ZRefundErrorBody,
  ZRefundResult,
  ZRenewErrorBody,
  ZRenewResult,
} from '@pm/contracts';
import { z } from 'zod';
import { getPrincipal } from '../../platform/auth.ts';
import { registerEndpoint } from '../../platform/endpoint.ts';
import type { ApiApp } from '../../platform/module.ts';
import { type HistoryService, toTrafficCsv } from './leases.history.ts';
import type { RefundService } from './leases.refund.ts';
import type { RenewService } from './leases.renew.ts';

const errors = { 400: ZErrorBody, 401: ZErrorBody, 403: ZErrorBody, 404: ZErrorBody, 429: ZErrorBody };
/** Renewals and refunds move money: 30 a minute per caller. */
const moneyRateLimit = { max: 30, timeWindow: 60_000 };
/** A refund's answers, the customer's and staff's alike. */
const refundSchema = {
  params: ZLeaseIdParams,
  response: { 200: ZRefundResult, ...errors, 400: ZRefundErrorBody, 409: ZRefundErrorBody },
};

/** Lease lifecycle routes: renew, refund (customer and staff), history, hourly traffic (JSON and CSV). */
export function registerLifecycleRoutes(
  app: ApiApp,
  deps: {
    renewals: Pick<RenewService, 'renewLease'>;
    refunds: Pick<RefundService, 'refundLease' | 'staffRefundLease'>;
    history: Pick<HistoryService, 'listHistory' | 'getTraffic'>;
  },
) {
  app.patch(
    '/leases/:id',
    {
      config: { auth: 'user', rateLimit: moneyRateLimit },
      schema: {
        tags: ['leases'],
        params: ZLeaseIdParams,
        headers: ZIdempotencyKeyHeaders,
        response: { 200: ZRenewResult, ...errors, 402: ZRenewErrorBody, 409: ZRenewErrorBody },
      },
    },
    async (req) =>
      deps.renewals.renewLease(getPrincipal(req).userId, req.params.id, req.headers['idempotency-key']),
  );

  // Also `DELETE /api/leases/{id}` (public API).
  registerEndpoint(app, ENDPOINTS.refundLease, {
    rateLimit: moneyRateLimit,
    handler: async (req, { params }) => deps.refunds.refundLease(getPrincipal(req).userId, params.id),
  });

  app.post(
    '/admin/leases/:id/refund',
    {
      config: { auth: 'staff', rateLimit: moneyRateLimit },
      schema: { tags: ['admin'], ...refundSchema },
    },
    async (req) => deps.refunds.staffRefundLease(req.params.id, getPrincipal(req).userId),
  );

  app.get(
    '/leaseHistory',
    {
      config: { auth: 'user' },
      schema: {
        tags: ['leases'],
        querystring: ZLeaseHistoryQuery,
        response: { 200: ZLeaseHistoryResponse, ...errors },
      },
    },
    async (req) => {
      const { offset, limit, ...filter } = req.query;
      return deps.history.listHistory({ userId: getPrincipal(req).userId, ...filter }, { offset, limit });
    },
  );

  app.get(
    '/leases/:id/traffic',
    {
      config: { auth: 'user' },
      schema: {
        tags: ['leases'],
        params: ZLeaseIdParams,
        response: { 200: ZLeaseTrafficResponse, ...errors },
      },
    },
    async (req) => deps.history.getTraffic(getPrincipal(req).userId, req.params.id),
  );

  app.get(
    '/leases/:id/traffic.csv',
    {
      config: { auth: 'user' },
      schema: { tags: ['leases'], params: ZLeaseIdParams, response: { 200: z.string(), ...errors } },
    },
    async (req, reply) => {
      const traffic = await deps.history.getTraffic(getPrincipal(req).userId, req.params.id);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="lease-${traffic.leaseID}-traffic.csv"`)
        .send(toTrafficCsv(traffic));
    },
  );
}
