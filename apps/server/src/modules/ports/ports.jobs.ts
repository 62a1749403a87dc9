import { z } from 'zod';
import { defineJob } from '../../platform/jobs.ts';
import { type PortRebindService, REBIND_BATCH } from './ports.rebind.ts';
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

/**
 * `ports.rebind`, every 10 seconds: a sold port its node could not listen on (`bind_error`) moves
 * to a spare of the same node, or its package ends with a full refund when the node has none
 * (`ports.rebind.ts`). One package per transaction; one that throws is skipped and counted.
 */
export const rebindUnboundPortsJob = defineJob({
  name: 'ports.rebind',
  payload: z.object({}).strict(),
  schedule: { everySeconds: 10, payload: {} },
  retry: { limit: 2, delaySeconds: 10 },
  timeoutSeconds: 60,
  handler: (
    _payload,
    services: { portRebind: Pick<PortRebindService, 'rebindUnboundPorts'> },
    { failures },
  ) => services.portRebind.rebindUnboundPorts(REBIND_BATCH, failures),
});
