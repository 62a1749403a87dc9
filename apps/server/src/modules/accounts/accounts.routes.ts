import {
  ZAccount,
  ZAccountIdParams,
  ZEmptyBody,
  ZErrorBody,
  ZIdempotencyKeyHeaders,
  ZPatchAccountRequest,
} from '@pm/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { getPrincipal } from '../../platform/auth.ts';
import type { AccountService } from './accounts.service.ts';

const errors = { 400: ZErrorBody, 401: ZErrorBody, 403: ZErrorBody, 404: ZErrorBody };

/** `GET|PUT /accounts/my` (any signed-in user), `GET|PATCH /accounts/{id}` (staff). */
export function register(app: FastifyInstance, deps: { accounts: AccountService }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/accounts/my',
    { schema: { tags: ['accounts'], response: { 200: ZAccount, ...errors } } },
    async (req) => deps.accounts.getAccount(getPrincipal(req).userId),
  );

  r.put(
    '/accounts/my',
    { schema: { tags: ['accounts'], body: ZEmptyBody, response: { 200: ZAccount, ...errors } } },
    async (req) => {
      const p = getPrincipal(req);
      return deps.accounts.ensureAccount({ userId: p.userId, email: p.email, refcode: p.refcode });
    },
  );

  r.get(
    '/accounts/:id',
    {
      config: { auth: 'staff' },
      schema: { tags: ['admin'], params: ZAccountIdParams, response: { 200: ZAccount, ...errors } },
    },
    async (req) => deps.accounts.getAccount(req.params.id),
  );

  r.patch(
    '/accounts/:id',
    {
      config: { auth: 'staff' },
      schema: {
        tags: ['admin'],
        params: ZAccountIdParams,
        headers: ZIdempotencyKeyHeaders,
        body: ZPatchAccountRequest,
        response: { 200: ZAccount, ...errors, 409: ZErrorBody },
      },
    },
    async (req) =>
      deps.accounts.patchAccount(req.params.id, req.body, {
        idemKey: req.headers['idempotency-key'],
        actorId: getPrincipal(req).userId,
      }),
  );
}
