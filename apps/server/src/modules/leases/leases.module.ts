import { defineModule, type Platform } from '../../platform/module.ts';
import type { AgentsService } from '../agents/agents.service.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import type { ProbeService } from '../probes/probes.service.ts';
import type { SaleKeyService } from '../sales/sales.service.ts';
import { createHistoryService } from './leases.history.ts';
import { autoRefundLeasesJob, expireLeasesJob } from './leases.jobs.ts';
import { registerLifecycleRoutes } from './leases.lifecycle.routes.ts';
import { createPurchaseService } from './leases.purchase.ts';
import { createRefundService } from './leases.refund.ts';
import { createRenewService } from './leases.renew.ts';
import { registerLeasesRoutes } from './leases.routes.ts';
import { createSaleService } from './leases.sale.ts';
import { createLeaseService } from './leases.service.ts';
import { createSettleService } from './leases.settle.ts';
import { registerStaffLeaseRoutes } from './leases.staff.routes.ts';
import { createStaffLeaseService } from './leases.staff.ts';

/**
 * Leases: the one sale path (`sales`: the agent reserved under its lock, the charge and the lease
 * in one transaction, the Idempotency-Key kept by the sale kernel `saleKeys`; used by the purchase,
 * the static shop and renewals), the
 * purchase (`POST /leases`: probe, then the sale), the
 * customer's active leases, auto-renew and notes on agents, the lease as rules §3 shapes it, ending,
 * refund marking, whitelists and no-auth ports; the lifecycle (renew, refund, history, hourly
 * traffic) and its jobs (expiry with auto-renew, auto-refund); staff look-ups and the credit of an
 * ended lease (`staffLeases`).
 */
export const leasesModule = defineModule({
  name: 'leases',
  needs: ['ledger', 'agents', 'probes', 'audit', 'saleKeys'],
  services: (
    platform: Platform,
    deps: {
      ledger: Pick<LedgerService, 'move' | 'charge' | 'getBalance'>;
      agents: Pick<AgentsService, 'reserveForSale' | 'checkForSale' | 'markSold' | 'findOnlineSince'>;
      probes: Pick<ProbeService, 'probeAgent'>;
      audit: Pick<AuditService, 'record'>;
      saleKeys: Pick<SaleKeyService, 'claim' | 'findPrior' | 'record' | 'inTurn'>;
    },
  ) => {
    const db = platform.db.db;
    const leases = createLeaseService({ db, agents: deps.agents, now: platform.now });
    const lifecycle = { db, ledger: deps.ledger, leases, agents: deps.agents, now: platform.now };
    const sales = createSaleService({
      db,
      agents: deps.agents,
      ledger: deps.ledger,
      leases,
      saleKeys: deps.saleKeys,
    });
    return {
      leases,
      sales,
      purchases: createPurchaseService({
        sales,
        probes: deps.probes,
        db: platform.db.db,
        changes: platform.changes,
      }),
      renewals: createRenewService({ ...lifecycle, saleKeys: deps.saleKeys }),
      refunds: createRefundService({ ...lifecycle, audit: deps.audit }),
      settle: createSettleService(lifecycle),
      history: createHistoryService({ db: platform.db.db }),
      staffLeases: createStaffLeaseService({ db, ledger: deps.ledger, audit: deps.audit, now: platform.now }),
    };
  },
  routes: (app, services) => {
    registerLeasesRoutes(app, services);
    registerLifecycleRoutes(app, services);
    registerStaffLeaseRoutes(app, services);
  },
  jobs: [expireLeasesJob, autoRefundLeasesJob],
});
