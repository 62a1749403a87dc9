import { z } from 'zod';
import { defineJob } from '../../platform/jobs.ts';
import type { PortsService } from './ports.service.ts';

/**
 * `ports.suspendDue`, every minute: suspends active packages past `date_finish` or at their
 * volume. The gateway suspends within seconds from its own counters; this is the backstop when no
 * gateway carries the package. Safe to run twice (`WHERE status = 'active'`).
 */
export const suspendDuePackagesJob = defineJob({
  name: 'ports.suspendDue',
  payload: z.object({}).strict(),
  schedule: { cron: '* * * * *', payload: {} },
  retry: { limit: 2, delaySeconds: 10 },
  timeoutSeconds: 60,
  handler: async (_payload, services: { ports: Pick<PortsService, 'suspendDue'> }) => {
    await services.ports.suspendDue();
  },
});
