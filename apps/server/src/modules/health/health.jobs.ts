import { z } from 'zod';
import { defineJob } from '../../platform/jobs.ts';
import type { HealthService } from './health.service.ts';

/** `health.sweepRateLimits`, every 10 minutes: deletes `rate_limits` rows whose window has ended. */
export const sweepRateLimitsJob = defineJob({
  name: 'health.sweepRateLimits',
  payload: z.object({}).strict(),
  schedule: { cron: '*/10 * * * *', payload: {} },
  retry: { limit: 1, delaySeconds: 60 },
  timeoutSeconds: 60,
  handler: (_payload, services: { health: Pick<HealthService, 'sweepRateLimits'> }) =>
    services.health.sweepRateLimits(),
});
