import { ENDPOINTS } from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import { registerEndpoint } from '../../platform/endpoint.ts';
import type { ApiApp } from '../../platform/module.ts';
import { type HistoryService, toTrafficCsv } from './leases.history.ts';
import type { RefundService } from './leases.refund.ts';
import type { RenewService } from './leases.renew.ts';

/** Renewals and refunds move money: 30 a minute per caller. */
const moneyRateLimit = { max: 30, timeWindow: 60_000 };

/** Lease lifecycle routes: renew, refund (customer and staff), history, hourly traffic (JSON and CSV). */
export function registerLifecycleRoutes(
  app: ApiApp,
  deps: {
    renewals: Pick<RenewService, 'renewLease'>;
    refunds: Pick<RefundService, 'refundLease' | 'staffRefundLease'>;
    history: Pick<HistoryService, 'listHistory' | 'getTraffic'>;
  },
) {
  registerEndpoint(app, ENDPOINTS.renewLease, {
    rateLimit: moneyRateLimit,
    handler: async (req, { params, headers }) =>
      deps.renewals.renewLease(getPrincipal(req).userId, params.id, headers['idempotency-key']),
  });

  // Also `DELETE /api/leases/{id}` (public API).
  registerEndpoint(app, ENDPOINTS.refundLease, {
    rateLimit: moneyRateLimit,
    handler: async (req, { params }) => deps.refunds.refundLease(getPrincipal(req).userId, params.id),
  });

  registerEndpoint(app, ENDPOINTS.staffRefundLease, {
    rateLimit: moneyRateLimit,
    handler: async (req, { params, body }) =>
      deps.refunds.staffRefundLease(params.id, getPrincipal(req).userId, body?.reason),
  });

  registerEndpoint(app, ENDPOINTS.listLeaseHistory, {
    handler: async (req, { query }) => {
      const { offset, limit, ...filter } = query;
      return deps.history.listHistory({ userId: getPrincipal(req).userId, ...filter }, { offset, limit });
    },
  });

  registerEndpoint(app, ENDPOINTS.getLeaseTraffic, {
    handler: async (req, { params }) => deps.history.getTraffic(getPrincipal(req).userId, params.id),
  });

  registerEndpoint(app, ENDPOINTS.downloadLeaseTrafficCsv, {
    handler: async (req, { params }, reply) => {
      const traffic = await deps.history.getTraffic(getPrincipal(req).userId, params.id);
      reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="lease-${traffic.leaseID}-traffic.csv"`);
      return toTrafficCsv(traffic);
    },
  });
}
