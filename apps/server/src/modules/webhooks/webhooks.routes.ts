import { ENDPOINTS } from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import { registerEndpoint } from '../../platform/endpoint.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { WebhookService } from './webhooks.service.ts';

/** The customer's webhook endpoints, pings and delivery log. */
export function registerWebhooksRoutes(
  app: ApiApp,
  deps: {
    webhooks: Pick<
      WebhookService,
      'createEndpoint' | 'listEndpoints' | 'deleteEndpoint' | 'ping' | 'listDeliveries'
    >;
  },
): void {
  registerEndpoint(app, ENDPOINTS.listWebhooks, {
    handler: async (req) => deps.webhooks.listEndpoints(getPrincipal(req).userId),
  });
  registerEndpoint(app, ENDPOINTS.createWebhook, {
    rateLimit: { max: 10, timeWindow: 60_000 },
    handler: async (req, { body }) => deps.webhooks.createEndpoint(getPrincipal(req).userId, body.url),
  });
  registerEndpoint(app, ENDPOINTS.deleteWebhook, {
    rateLimit: { max: 30, timeWindow: 60_000 },
    handler: async (req, { params }) => {
      await deps.webhooks.deleteEndpoint(getPrincipal(req).userId, params.id);
      return null;
    },
  });
  registerEndpoint(app, ENDPOINTS.pingWebhook, {
    rateLimit: { max: 10, timeWindow: 60_000 },
    handler: async (req, { params }) => deps.webhooks.ping(getPrincipal(req).userId, params.id),
  });
  registerEndpoint(app, ENDPOINTS.listWebhookDeliveries, {
    handler: async (req) => deps.webhooks.listDeliveries(getPrincipal(req).userId),
  });
}
