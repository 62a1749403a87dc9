import { ENDPOINTS } from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import { registerEndpoint } from '../../platform/endpoint.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { AuthPortService } from './authport.service.ts';

/** `POST /authport/create/{id}`: the body is the whitelist (a JSON string, `{ whitelist }` or a list). */
export function registerAuthPortRoutes(
  app: ApiApp,
  deps: { authport: Pick<AuthPortService, 'createAuthPort'> },
) {
  registerEndpoint(app, ENDPOINTS.createAuthPort, {
    // Each call may allocate a port on the node: a few a minute is plenty for a person.
    rateLimit: { max: 30, timeWindow: 60_000 },
    handler: async (req, { params, body }) => {
      const { userId, isStaff } = getPrincipal(req);
      const whitelist = typeof body === 'string' ? body : body.whitelist;
      return deps.authport.createAuthPort({ userId, isStaff }, params.id, whitelist);
    },
  });
}
