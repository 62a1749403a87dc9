import { z } from 'zod';
import { defineJob } from '../../platform/jobs.ts';
import type { SettleService } from './leases.settle.ts';

/**
 * `leases.expire`, every minute: every lease at its end is renewed (auto-renew and the balance
 * covers it) or ended with its reason, one lease per transaction under SKIP LOCKED; safe to run
 * twice or on two workers (see `createSettleService`).
 */
export const expireLeasesJob = defineJob({
  name: 'leases.expire',
  payload: z.object({}).strict(),
  schedule: { cron: '* * * * *', payload: {} },
  retry: { limit: 2, delaySeconds: 10 },
  timeoutSeconds: 60,
  handler: (_payload, services: { settle: Pick<SettleService, 'settleDueLeases'> }) =>
    services.settle.settleDueLeases(),
});

/** `leases.autoRefund`, every minute: refunds running leases whose agent failed 40% or more of the last hour's requests. */
export const autoRefundLeasesJob = defineJob({
  name: 'leases.autoRefund',
  payload: z.object({}).strict(),
  schedule: { cron: '* * * * *', payload: {} },
  retry: { limit: 2, delaySeconds: 10 },
  timeoutSeconds: 60,
  handler: (_payload, services: { settle: Pick<SettleService, 'autoRefundFailing'> }) =>
    services.settle.autoRefundFailing(),
});
