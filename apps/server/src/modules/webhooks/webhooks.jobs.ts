import { WEBHOOK_MAX_ATTEMPTS } from '@pm/contracts';
import { z } from 'zod';
import { defineJob } from '../../platform/jobs.ts';
import type { WebhookService } from './webhooks.service.ts';

/** `webhooks.deliver`: one try of one delivery; retried 30 s, 60 s, … up to an hour apart. */
export const deliverWebhookJob = defineJob({
  name: 'webhooks.deliver',
  payload: z.object({ deliveryId: z.uuid() }).strict(),
  retry: { limit: WEBHOOK_MAX_ATTEMPTS - 1, delaySeconds: 30, backoff: true, maxDelaySeconds: 3600 },
  timeoutSeconds: 60,
  handler: (p, services: { webhooks: Pick<WebhookService, 'deliver'> }) =>
    services.webhooks.deliver(p.deliveryId),
});

/**
 * `webhooks.scan`, every minute: `lease.expiring` for leases ending within the hour,
 * `lease.agentOffline` for running leases whose agent is offline past the grace, `lease.ended`
 * and `deposit.credited` for those of the last 15 minutes (each once, by its event key). An event
 * whose delivery cannot be queued is skipped, logged and counted; the others are sent.
 */
export const scanWebhookEventsJob = defineJob({
  name: 'webhooks.scan',
  payload: z.object({}).strict(),
  schedule: { cron: '* * * * *', payload: {} },
  retry: { limit: 2, delaySeconds: 10 },
  timeoutSeconds: 60,
  handler: async (
    _p,
    services: {
      webhooks: Pick<WebhookService, 'notifyExpiringLeases' | 'notifyOfflineAgents' | 'scanEvents'>;
    },
    { failures },
  ) => {
    await services.webhooks.notifyExpiringLeases(failures);
    await services.webhooks.notifyOfflineAgents(failures);
    await services.webhooks.scanEvents(failures);
  },
});
