import { defineModule, type Platform } from '../../platform/module.ts';
import { deliverWebhookJob, scanWebhookEventsJob } from './webhooks.jobs.ts';
import { registerWebhooksRoutes } from './webhooks.routes.ts';
import { createWebhookService } from './webhooks.service.ts';

/** Signed webhook events to customers' endpoints, with retries and a delivery log. */
export const webhooksModule = defineModule({
  name: 'webhooks',
  needs: [],
  services: (platform: Platform) => ({
    webhooks: createWebhookService({
      db: platform.db.db,
      jobs: platform.jobs,
      now: platform.now,
      allowPrivate: platform.settings.webhooksAllowPrivate === true,
    }),
  }),
  routes: registerWebhooksRoutes,
  jobs: [deliverWebhookJob, scanWebhookEventsJob],
});
