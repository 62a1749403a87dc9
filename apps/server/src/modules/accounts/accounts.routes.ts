import { ENDPOINTS } from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import { registerEndpoint } from '../../platform/endpoint.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { AccountService } from './accounts.service.ts';

/** `GET|PUT /accounts/my` (any signed-in user), `GET|PATCH /accounts/{id}` (staff). */
export function registerAccountsRoutes(app: ApiApp, deps: { accounts: AccountService }): void {
  registerEndpoint(app, ENDPOINTS.getMyAccount, {
    handler: async (req) => deps.accounts.getAccount(getPrincipal(req).userId),
  });

  registerEndpoint(app, ENDPOINTS.createMyAccount, {
    handler: async (req) => {
      const p = getPrincipal(req);
      return deps.accounts.ensureAccount({
        userId: p.userId,
        email: p.email,
        refcode: p.refcode,
        referredBy: p.referredBy,
        emailVerified: p.emailVerified,
      });
    },
  });

  registerEndpoint(app, ENDPOINTS.getAccount, {
    handler: async (_req, { params }) => deps.accounts.getAccount(params.id),
  });

  registerEndpoint(app, ENDPOINTS.updateAccount, {
    handler: async (req, { params, body, headers }) => {
      const actor = getPrincipal(req);
      return deps.accounts.patchAccount(params.id, body, {
        idemKey: headers['idempotency-key'],
        actorId: actor.userId,
        actorPermissions: actor.permissions,
      });
    },
  });
}
