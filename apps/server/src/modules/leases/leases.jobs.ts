import { z } from 'zod';
import { defineJob } from '../../platform/jobs.ts';
import type { LeaseService } from './leases.service.ts';

/**
 * `leases.expire`, every minute: marks leases past their end time as ended, which frees their
 * no-auth ports. Safe to run twice (only leases not yet ended are touched).
 */
export const expireLeasesJob = defineJob({
  name: 'leases.expire',
  payload: z.object({}).strict(),
  schedule: { cron: '* * * * *', payload: {} },
  retry: { limit: 2, delaySeconds: 10 },
  timeoutSeconds: 60,
  handler: (_payload, services: { leases: Pick<LeaseService, 'expireLeases'> }) =>
    services.leases.expireLeases(),
});
