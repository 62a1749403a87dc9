import {
  ZErrorBody,
  ZIdempotencyKeyHeaders,
  ZLease,
  ZStaticLeaseBody,
  ZStaticLeaseErrorBody,
  ZStaticListQuery,
  ZStaticListResponse,
} from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { StaticService } from './static.service.ts';

const errors = { 400: ZErrorBody, 401: ZErrorBody, 404: ZErrorBody, 429: ZErrorBody };

/** The static shop: `GET /static/list/` and `POST /static/lease`. */
export function registerStaticRoutes(app: ApiApp, deps: { staticShop: StaticService }) {
  app.get(
    '/static/list/',
    {
      config: { auth: 'user' },
      schema: {
        tags: ['static'],
        querystring: ZStaticListQuery,
        response: { 200: ZStaticListResponse, ...errors },
      },
    },
    async (req) => deps.staticShop.listStatic(req.query),
  );

  app.post(
    '/static/lease',
    {
      config: { auth: 'user', rateLimit: { max: 30, timeWindow: 60_000 } },
      schema: {
        tags: ['static'],
        headers: ZIdempotencyKeyHeaders,
        body: ZStaticLeaseBody,
        response: { 201: ZLease, 402: ZErrorBody, 403: ZErrorBody, ...errors, 409: ZStaticLeaseErrorBody },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(
          await deps.staticShop.leaseStatic(
            getPrincipal(req).userId,
            req.body,
            req.headers['idempotency-key'],
          ),
        ),
  );
}
