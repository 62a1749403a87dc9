import { defineModule } from '../../platform/module.ts';
import { expireLeasesJob } from './leases.jobs.ts';
import { createLeaseService } from './leases.service.ts';

/**
 * Leases: creation without overselling an agent, the lease as SPEC 3 shapes it, ending, refund
 * marking, whitelists and no-auth ports, and the expiry job. Routes come with the shop.
 */
export const leasesModule = defineModule({
  name: 'leases',
  needs: [],
  services: (platform) => ({ leases: createLeaseService({ db: platform.db.db, now: platform.now }) }),
  jobs: [expireLeasesJob],
});
