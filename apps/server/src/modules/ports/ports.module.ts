import { defineModule, type Platform } from '../../platform/module.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import { suspendDuePackagesJob } from './ports.jobs.ts';
import { registerPortsApiRoutes, registerPortsStaffRoutes } from './ports.routes.ts';
import { createPortsService } from './ports.service.ts';

/**
 * Port packages (issue 25): the Ports API on its own listener (`portsRoutes`), the staff price
 * table `GET|PUT /pricing/ports` on the market API, and the `ports.suspendDue` backstop job.
 */
export const portsModule = defineModule({
  name: 'ports',
  needs: ['ledger'],
  services: (platform: Platform, { ledger }: { ledger: Pick<LedgerService, 'charge' | 'move'> }) => ({
    ports: createPortsService({ db: platform.db.db, ledger, now: platform.now }),
  }),
  routes: registerPortsStaffRoutes,
  portsRoutes: registerPortsApiRoutes,
  jobs: [suspendDuePackagesJob],
});
