import { defineModule, type Platform } from '../../platform/module.ts';
import type { AccountService } from '../accounts/accounts.service.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import type { SaleKeyService } from '../sales/sales.service.ts';
import { rebindUnboundPortsJob, suspendDuePackagesJob } from './ports.jobs.ts';
import { createPortRebindService } from './ports.rebind.ts';
import { registerPortsApiRoutes, registerPortsStaffRoutes } from './ports.routes.ts';
import { createPortsService } from './ports.service.ts';

/**
 * Port packages (issue 25): the Ports API on its own listener (`portsRoutes`), the staff price
 * table `GET|PUT /pricing/ports` on the market API, and the `ports.suspendDue` backstop job.
 * Purchase, reactivation and refund sell through the sale kernel (`saleKeys`) and the ledger.
 */
export const portsModule = defineModule({
  name: 'ports',
  needs: ['ledger', 'saleKeys', 'accounts'],
  services: (
    platform: Platform,
    deps: {
      ledger: Pick<LedgerService, 'charge' | 'move'>;
      saleKeys: Pick<SaleKeyService, 'claim' | 'findPrior' | 'record' | 'inTurn'>;
      accounts: Pick<AccountService, 'isBlocked'>;
    },
  ) => ({
    ports: createPortsService({
      db: platform.db.db,
      ...deps,
      now: platform.now,
      flush: { waitMs: platform.settings.portRefundFlushWaitMs },
    }),
    // Sold ports their node could not listen on: moved to spares or refunded (`ports.rebind`).
    portRebind: createPortRebindService({ db: platform.db.db, ledger: deps.ledger, now: platform.now }),
  }),
  routes: registerPortsStaffRoutes,
  portsRoutes: registerPortsApiRoutes,
  jobs: [suspendDuePackagesJob, rebindUnboundPortsJob],
});
