import {
  ZChargeCodeParams,
  ZChargePage,
  ZCryptoCheckRequest,
  ZCryptoCheckResponse,
  ZCryptoCreateRequest,
  ZCryptoCreateResponse,
  ZCryptoTransactionsQuery,
  ZCryptoTransactionsResponse,
  ZDeepCheckRequest,
  ZDeepCheckResponse,
  ZErrorBody,
  ZHeldCredit,
  ZHeldCreditDecision,
  ZHeldCreditParams,
  ZHeldCreditsQuery,
  ZHeldCreditsResponse,
  ZVanishedPaymentsResponse,
} from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { PaymentService } from './payments.service.ts';
import type { PaymentsStaffService } from './payments.staff.service.ts';

const errors = { 400: ZErrorBody, 401: ZErrorBody, 403: ZErrorBody, 404: ZErrorBody };

/**
 * Crypto top-ups: `POST /crypto/create`, `POST /crypto/check`, `GET /crypto/charges/{code}` (the
 * charge page), and for staff `POST /crypto/deep-check/`, `GET /crypto/transactions`, held credits
 * (`GET /crypto/held`, `POST /crypto/held/{id}/release|return`) and `GET /crypto/vanished`.
 */
export function registerPaymentsRoutes(
  app: ApiApp,
  deps: { payments: PaymentService; paymentsStaff: PaymentsStaffService },
): void {
  app.post(
    '/crypto/create',
    {
      // Each charge may derive an address: bounded per user so the operator's wallet gap stays small.
      config: { auth: 'user', rateLimit: { max: 20, timeWindow: 60_000 } },
      schema: {
        tags: ['payments'],
        body: ZCryptoCreateRequest,
        response: { 200: ZCryptoCreateResponse, ...errors, 429: ZErrorBody, 503: ZErrorBody },
      },
    },
    async (req) => deps.payments.createCharge({ userId: getPrincipal(req).userId }, req.body),
  );

  app.post(
    '/crypto/check',
    {
      config: { auth: 'user' },
      schema: {
        tags: ['payments'],
        body: ZCryptoCheckRequest,
        response: { 200: ZCryptoCheckResponse, ...errors },
      },
    },
    async (req) => deps.payments.checkCharge(getPrincipal(req), req.body.uid),
  );

  app.get(
    '/crypto/charges/:code',
    {
      config: { auth: 'user' },
      schema: { tags: ['payments'], params: ZChargeCodeParams, response: { 200: ZChargePage, ...errors } },
    },
    async (req) => deps.payments.getChargePage(getPrincipal(req), req.params.code),
  );

  app.post(
    '/crypto/deep-check/',
    {
      config: { auth: 'staff', rateLimit: { max: 30, timeWindow: 60_000 } },
      schema: {
        tags: ['admin'],
        body: ZDeepCheckRequest,
        response: { 200: ZDeepCheckResponse, ...errors, 503: ZErrorBody },
      },
    },
    async (req) => deps.payments.deepCheck(getPrincipal(req).userId, req.body),
  );

  app.get(
    '/crypto/transactions',
    {
      config: { auth: 'staff' },
      schema: {
        tags: ['admin'],
        querystring: ZCryptoTransactionsQuery,
        response: { 200: ZCryptoTransactionsResponse, ...errors },
      },
    },
    async (req) => {
      const { user_id, ...page } = req.query;
      return deps.payments.listTransactions({ userId: user_id, ...page });
    },
  );

  app.get(
    '/crypto/held',
    {
      config: { auth: 'staff' },
      schema: {
        tags: ['admin'],
        querystring: ZHeldCreditsQuery,
        response: { 200: ZHeldCreditsResponse, ...errors },
      },
    },
    async (req) => {
      const { user_id, ...page } = req.query;
      return deps.paymentsStaff.listHeld({ userId: user_id, ...page });
    },
  );

  for (const verb of ['release', 'return'] as const) {
    app.post(
      `/crypto/held/:id/${verb}`,
      {
        config: { auth: 'staff', rateLimit: { max: 60, timeWindow: 60_000 } },
        schema: {
          tags: ['admin'],
          params: ZHeldCreditParams,
          body: ZHeldCreditDecision,
          response: { 200: ZHeldCredit, ...errors, 409: ZErrorBody },
        },
      },
      async (req) => {
        const actor = getPrincipal(req).userId;
        return verb === 'release'
          ? deps.paymentsStaff.releaseHeld(actor, req.params.id, req.body.note)
          : deps.paymentsStaff.returnHeld(actor, req.params.id, req.body.note);
      },
    );
  }

  app.get(
    '/crypto/vanished',
    {
      config: { auth: 'staff' },
      schema: { tags: ['admin'], response: { 200: ZVanishedPaymentsResponse, ...errors } },
    },
    async () => deps.paymentsStaff.listVanished(),
  );
}
