import { defineModule, type Platform } from '../../platform/module.ts';
import type { AgentsService } from '../agents/agents.service.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import type { ProbeService } from '../probes/probes.service.ts';
import { expireLeasesJob } from './leases.jobs.ts';
import { createPurchaseService } from './leases.purchase.ts';
import { registerLeasesRoutes } from './leases.routes.ts';
import { createLeaseService } from './leases.service.ts';

/**
 * Leases: the purchase (`POST /leases`: rules, probe, debit and lease in one transaction), the
 * customer's active leases, auto-renew and notes on agents, the lease as SPEC 3 shapes it, ending,
 * refund marking, whitelists and no-auth ports, and the expiry job.
 */
export const leasesModule = defineModule({
  name: 'leases',
  needs: ['ledger', 'agents', 'probes'],
  services: (
    platform: Platform,
    deps: {
      ledger: Pick<LedgerService, 'move'>;
      agents: Pick<AgentsService, 'quoteForPurchase' | 'markSold'>;
      probes: Pick<ProbeService, 'probeAgent'>;
    },
  ) => {
    const leases = createLeaseService({ db: platform.db.db, now: platform.now });
    return { leases, purchases: createPurchaseService({ db: platform.db.db, ...deps, leases }) };
  },
  routes: registerLeasesRoutes,
  jobs: [expireLeasesJob],
});
