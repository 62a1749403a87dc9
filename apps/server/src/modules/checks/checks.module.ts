import { defineModule, type Platform } from '../../platform/module.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import { DEFAULT_CHECKS_SETTINGS } from './checks.config.ts';
import { createDnsblChecker } from './checks.dnsbl.ts';
import { recoverScoreChecksJob, sweepBlacklistsJob } from './checks.jobs.ts';
import { createScoreProviders } from './checks.providers.ts';
import { registerChecksRoutes } from './checks.routes.ts';
import { createScoreService } from './checks.score.ts';
import { createChecksService } from './checks.service.ts';

/**
 * The checks of an agent's address: DNS blacklists and the clean score (job checks.blacklists),
 * speed checks through the gateway, paid IP score checks (G, I, M). Its own tables
 * (packages/db/src/schema/checks.ts); the agents row is only read.
 */
export const checksModule = defineModule({
  name: 'checks',
  needs: ['ledger'],
  services: (platform: Platform, { ledger }: { ledger: Pick<LedgerService, 'move' | 'charge'> }) => {
    const settings = platform.settings.checks ?? DEFAULT_CHECKS_SETTINGS;
    const db = platform.db.db;
    return {
      checks: createChecksService({
        db,
        settings,
        dnsbl: createDnsblChecker(settings.dnsbl),
        now: platform.now,
      }),
      scoreChecks: createScoreService({
        db,
        settings: settings.score,
        providers: createScoreProviders(settings.score, settings.fetch),
        ledger,
        now: platform.now,
        changes: platform.changes,
      }),
    };
  },
  routes: registerChecksRoutes,
  jobs: [sweepBlacklistsJob, recoverScoreChecksJob],
});
