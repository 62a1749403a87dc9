import {
  ZAccount,
  ZAccountIdParams,
  ZEmptyBody,
  ZErrorBody,
  ZIdempotencyKeyHeaders,
  ZPatchAccountRequest,
} from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { AccountService } from './accounts.service.ts';

const errors = { 400: ZErrorBody, 401: ZErrorBody, 403: ZErrorBody, 404: ZErrorBody };

/** `GET|PUT /accounts/my` (any signed-in user), `GET|PATCH /accounts/{id}` (staff). */
export function registerAccountsRoutes(app: ApiApp, deps: { accounts: AccountService }): void {
  app.get(
    '/accounts/my',
    { config: { auth: 'user' }, schema: { tags: ['accounts'], response: { 200: ZAccount, ...errors } } },
    async (req) => deps.accounts.getAccount(getPrincipal(req).userId),
  );

  app.put(
    '/accounts/my',
    {
      config: { auth: 'user' },
      schema: { tags: ['accounts'], body: ZEmptyBody, response: { 200: ZAccount, ...errors } },
    },
    async (req) => {
      const p = getPrincipal(req);
      return deps.accounts.ensureAccount({
        userId: p.userId,
        email: p.email,
        refcode: p.refcode,
        referredBy: p.referredBy,
      });
    },
  );

  app.get(
    '/accounts/:id',
    {
      config: { auth: 'staff' },
      schema: { tags: ['admin'], params: ZAccountIdParams, response: { 200: ZAccount, ...errors } },
    },
    async (req) => deps.accounts.getAccount(req.params.id),
  );

  app.patch(
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
