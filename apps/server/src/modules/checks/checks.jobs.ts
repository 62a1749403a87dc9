import { z } from 'zod';
import { defineJob } from '../../platform/jobs.ts';
import type { ScoreService } from './checks.score.ts';
import type { ChecksService } from './checks.service.ts';

/**
 * `checks.blacklists`, every minute: DNSBL lookups of the agents whose address is new, changed,
 * or older than the recheck interval (one batch per run); an upsert per agent, safe to run twice.
 * An agent whose lookup throws is skipped, logged and counted; the others are looked up.
 */
export const sweepBlacklistsJob = defineJob({
  name: 'checks.blacklists',
  payload: z.object({}).strict(),
  schedule: { cron: '* * * * *', payload: {} },
  retry: { limit: 1, delaySeconds: 10 },
  timeoutSeconds: 120,
  handler: (_payload, services: { checks: Pick<ChecksService, 'sweepBlacklists'> }, { failures }) =>
    services.checks.sweepBlacklists(undefined, failures).then(() => undefined),
});

/** `checks.recoverScoreChecks`, every 5 minutes: refunds score checks a crashed process left running. */
export const recoverScoreChecksJob = defineJob({
  name: 'checks.recoverScoreChecks',
  payload: z.object({}).strict(),
  schedule: { cron: '*/5 * * * *', payload: {} },
  retry: { limit: 2, delaySeconds: 10 },
  timeoutSeconds: 60,
  handler: (_payload, services: { scoreChecks: Pick<ScoreService, 'refundAbandoned'> }, { failures }) =>
    services.scoreChecks.refundAbandoned(undefined, failures).then(() => undefined),
});
