import { ENDPOINTS } from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import { registerEndpoint } from '../../platform/endpoint.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { ApiKeyService } from './apikeys.service.ts';

/** `GET|POST /apikeys`, `DELETE /apikeys/{id}`: the customer's API keys (the web app's token only). */
export function registerApiKeysRoutes(
  app: ApiApp,
  deps: { apiKeys: Pick<ApiKeyService, 'createKey' | 'listKeys' | 'revokeKey'> },
): void {
  // The caller's address (behind TRUST_PROXY_HOPS proxies, the client's): the add-on whitelists it.
  registerEndpoint(app, ENDPOINTS.myAddress, {
    handler: async (req) => ({ ip: req.ip.replace(/^::ffff:/, '') }),
  });
  registerEndpoint(app, ENDPOINTS.listApiKeys, {
    handler: async (req) => deps.apiKeys.listKeys(getPrincipal(req).userId),
  });
  registerEndpoint(app, ENDPOINTS.createApiKey, {
    rateLimit: { max: 30, timeWindow: 60_000 },
    handler: async (req, { body }) => deps.apiKeys.createKey(getPrincipal(req).userId, body.name),
  });
  registerEndpoint(app, ENDPOINTS.revokeApiKey, {
    rateLimit: { max: 60, timeWindow: 60_000 },
    handler: async (req, { params }) => {
      await deps.apiKeys.revokeKey(getPrincipal(req).userId, params.id);
      return null;
    },
  });
}
