import { ENDPOINTS } from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import { registerEndpoint } from '../../platform/endpoint.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { PaymentService } from './payments.service.ts';
import type { PaymentsStaffService } from './payments.staff.service.ts';

/**
 * Crypto top-ups: `POST /crypto/create`, `POST /crypto/check`, `GET /crypto/charges/{code}` (the
 * charge page), and for staff `POST /crypto/deep-check/`, `GET /crypto/transactions`, held credits
 * (`GET /crypto/held`, `POST /crypto/held/{id}/release|return`) and `GET /crypto/vanished`.
 */
export function registerPaymentsRoutes(
  app: ApiApp,
  deps: { payments: PaymentService; paymentsStaff: PaymentsStaffService },
): void {
  registerEndpoint(app, ENDPOINTS.createCharge, {
    // Each charge may derive an address: bounded per user so the operator's wallet gap stays small.
    rateLimit: { max: 20, timeWindow: 60_000 },
    handler: async (req, { body }) => deps.payments.createCharge({ userId: getPrincipal(req).userId }, body),
  });

  registerEndpoint(app, ENDPOINTS.checkCharge, {
    handler: async (req, { body }) => deps.payments.checkCharge(getPrincipal(req), body.uid),
  });

  registerEndpoint(app, ENDPOINTS.getChargePage, {
    handler: async (req, { params }) => deps.payments.getChargePage(getPrincipal(req), params.code),
  });

  registerEndpoint(app, ENDPOINTS.deepCheckPayments, {
    rateLimit: { max: 30, timeWindow: 60_000 },
    handler: async (req, { body }) => deps.payments.deepCheck(getPrincipal(req).userId, body),
  });

  registerEndpoint(app, ENDPOINTS.listCryptoTransactions, {
    handler: async (_req, { query }) => {
      const { user_id, ...page } = query;
      return deps.payments.listTransactions({ userId: user_id, ...page });
    },
  });

  registerEndpoint(app, ENDPOINTS.listHeldCredits, {
    handler: async (_req, { query }) => {
      const { user_id, ...page } = query;
      return deps.paymentsStaff.listHeld({ userId: user_id, ...page });
    },
  });

  // Releases and returns: 60 a minute per member of staff, each decision its own budget.
  const heldRateLimit = { max: 60, timeWindow: 60_000 };
  registerEndpoint(app, ENDPOINTS.releaseHeldCredit, {
    rateLimit: heldRateLimit,
    handler: async (req, { params, body }) =>
      deps.paymentsStaff.releaseHeld(getPrincipal(req).userId, params.id, body.note),
  });
  registerEndpoint(app, ENDPOINTS.returnHeldCredit, {
    rateLimit: heldRateLimit,
    handler: async (req, { params, body }) =>
      deps.paymentsStaff.returnHeld(getPrincipal(req).userId, params.id, body.note),
  });

  registerEndpoint(app, ENDPOINTS.listVanishedPayments, {
    handler: async () => deps.paymentsStaff.listVanished(),
  });
}
