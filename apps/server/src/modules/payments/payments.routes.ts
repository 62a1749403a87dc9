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
} from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { PaymentService } from './payments.service.ts';

const errors = { 400: ZErrorBody, 401: ZErrorBody, 403: ZErrorBody, 404: ZErrorBody };

/**
 * Crypto top-ups: `POST /crypto/create`, `POST /crypto/check`, `GET /crypto/charges/{code}` (the
 * charge page), and for staff `POST /crypto/deep-check/` and `GET /crypto/transactions`.
 */
export function registerPaymentsRoutes(app: ApiApp, deps: { payments: PaymentService }): void {
  app.post(
    '/crypto/create',
    {
      // Each charge may derive an address: bounded per user so the operator's wallet gap stays small.
      config: { auth: 'user', rateLimit: { max: 20, timeWindow: 60_000 } },
      schema: {
        tags: ['payments'],
        body: ZCryptoCreateRequest,
        response: { 200: ZCryptoCreateResponse, ...errors, 503: ZErrorBody },
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
    async (req) => deps.payments.deepCheck(req.body),
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
}
