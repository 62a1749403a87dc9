import { ZAuthPortCreateBody, ZAuthPortCreateResponse, ZAuthPortParams, ZErrorBody } from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { AuthPortService } from './authport.service.ts';

const errors = { 400: ZErrorBody, 401: ZErrorBody, 404: ZErrorBody, 409: ZErrorBody, 429: ZErrorBody };

/** `POST /authport/create/{id}`: the body is the whitelist (a JSON string, `{ whitelist }` or a list). */
export function registerAuthPortRoutes(
  app: ApiApp,
  deps: { authport: Pick<AuthPortService, 'createAuthPort'> },
) {
  app.post(
    '/authport/create/:id',
    {
      // Each call may allocate a port on the node: a few a minute is plenty for a person.
      config: { auth: 'user', rateLimit: { max: 30, timeWindow: 60_000 } },
      schema: {
        tags: ['leases'],
        params: ZAuthPortParams,
        body: ZAuthPortCreateBody,
        response: { 200: ZAuthPortCreateResponse, ...errors },
      },
    },
    async (req) => {
      const { userId, isStaff } = getPrincipal(req);
      const whitelist = typeof req.body === 'string' ? req.body : req.body.whitelist;
      return deps.authport.createAuthPort({ userId, isStaff }, req.params.id, whitelist);
    },
  );
}
