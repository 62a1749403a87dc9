import { z } from 'zod';
import { defineJob } from '../../platform/jobs.ts';
import type { PaymentService } from './payments.service.ts';

/**
 * `payments.watch`: one watcher pass over every configured chain. The cron starts one every
 * minute; each run chains the next one `watchIntervalSeconds` later (claimed in the database, so
 * the cron and the chain never multiply). Safe to run twice at once: crediting is exactly-once.
 */
export const watchPaymentsJob = defineJob({
  name: 'payments.watch',
  payload: z.object({}).strict(),
  schedule: { cron: '* * * * *', payload: {} },
  // A failed pass is not retried: the next one is at most a cycle away.
  retry: { limit: 0 },
  timeoutSeconds: 300,
  handler: (_payload, { payments }: { payments: Pick<PaymentService, 'runWatchPass'> }) =>
    payments.runWatchPass(),
});
