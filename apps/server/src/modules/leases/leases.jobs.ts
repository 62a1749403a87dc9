import { z } from 'zod';
import { defineJob } from '../../platform/jobs.ts';
import { SETTLE_BATCH, type SettleService } from './leases.settle.ts';
import { AUTO_REFUND_MIN_REQUESTS } from './leases.stats.ts';

/**
 * `leases.expire`, every minute: every lease at its end is renewed (auto-renew and the balance
 * covers it) or ended with its reason, one lease per transaction under SKIP LOCKED; safe to run
 * twice or on two workers (see `createSettleService`). A lease that throws is skipped, logged and
 * counted (`jobs_item_failures_total`), and the run goes on.
 */
export const expireLeasesJob = defineJob({
  name: 'leases.expire',
  payload: z.object({}).strict(),
  schedule: { cron: '* * * * *', payload: {} },
  retry: { limit: 2, delaySeconds: 10 },
  timeoutSeconds: 60,
  handler: (_payload, services: { settle: Pick<SettleService, 'settleDueLeases'> }, { failures }) =>
    services.settle.settleDueLeases(SETTLE_BATCH, failures),
});

/** `leases.autoRefund`, every minute: refunds running leases whose agent failed 40% or more of the last hour's requests. */
export const autoRefundLeasesJob = defineJob({
  name: 'leases.autoRefund',
  payload: z.object({}).strict(),
  schedule: { cron: '* * * * *', payload: {} },
  retry: { limit: 2, delaySeconds: 10 },
  timeoutSeconds: 60,
  handler: (_payload, services: { settle: Pick<SettleService, 'autoRefundFailing'> }, { failures }) =>
    services.settle.autoRefundFailing(SETTLE_BATCH, AUTO_REFUND_MIN_REQUESTS, failures),
});
