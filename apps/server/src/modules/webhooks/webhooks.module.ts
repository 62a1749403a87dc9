import { defineModule, type Platform } from '../../platform/module.ts';
import type { LeaseService } from '../leases/leases.service.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import { deliverWebhookJob, scanWebhookEventsJob } from './webhooks.jobs.ts';
import { registerWebhooksRoutes } from './webhooks.routes.ts';
import { createWebhookService } from './webhooks.service.ts';

/** Signed webhook events to customers' endpoints, with retries and a delivery log. */
export const webhooksModule = defineModule({
  name: 'webhooks',
  needs: ['leases', 'ledger'],
  services: (
    platform: Platform,
    deps: { leases: Pick<LeaseService, 'events'>; ledger: Pick<LedgerService, 'depositsSince'> },
  ) => ({
    webhooks: createWebhookService({
      db: platform.db.db,
      leases: deps.leases,
      ledger: deps.ledger,
      jobs: platform.jobs,
      now: platform.now,
      allowPrivate: platform.settings.webhooksAllowPrivate === true,
      allowOrigins: platform.settings.webhookAllowUrls,
    }),
  }),
  routes: registerWebhooksRoutes,
  jobs: [deliverWebhookJob, scanWebhookEventsJob],
});
