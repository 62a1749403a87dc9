import { z } from 'zod';
import { defineJob } from '../../platform/jobs.ts';
import type { PaymentService } from './payments.service.ts';

/**
 * `payments.watch`: one watcher pass over every configured chain, every
 * `watchIntervalSeconds` (PAYMENTS_WATCH_INTERVAL_S, 5-60): once per slot of the database clock
 * however many workers run, never two at once (an `everySeconds` schedule). None without payments
 * settings. Safe to run twice at once anyway: crediting is exactly-once.
 */
export const watchPaymentsJob = defineJob({
  name: 'payments.watch',
  payload: z.object({}).strict(),
  schedule: { everySeconds: (settings) => settings.payments?.watchIntervalSeconds, payload: {} },
  // A failed pass is not retried: the next one is at most a cycle away.
  retry: { limit: 0 },
  timeoutSeconds: 300,
  handler: (_payload, { payments }: { payments: Pick<PaymentService, 'runWatchPass'> }, { failures }) =>
    payments.runWatchPass(failures),
});
