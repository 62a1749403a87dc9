import { defineModule, type Platform } from '../../platform/module.ts';
import { registerPublicDocument } from './apikeys.openapi.ts';
import { registerApiKeysRoutes } from './apikeys.routes.ts';
import { createApiKeyService } from './apikeys.service.ts';

/**
 * Customers' API keys for the public API (`/api/*`): created, listed and revoked by the customer;
 * the auth hook resolves a presented key through `apiKeys.resolve` on `api` routes only. Also
 * the public API's document, `GET /api/openapi.json`.
 */
export const apiKeysModule = defineModule({
  name: 'apikeys',
  needs: [],
  services: (platform: Platform) => ({ apiKeys: createApiKeyService({ db: platform.db.db }) }),
  routes: (app, services, platform) => {
    registerApiKeysRoutes(app, services);
    registerPublicDocument(app, platform);
  },
});
