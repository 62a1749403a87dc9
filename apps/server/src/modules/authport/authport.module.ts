import { defineModule, type Platform } from '../../platform/module.ts';
import type { LeaseService } from '../leases/leases.service.ts';
import { registerAuthPortRoutes } from './authport.routes.ts';
import { createAuthPortService } from './authport.service.ts';

/** No-auth ports: `POST /authport/create/{id}` for the lease's owner, on the lease service. */
export const authportModule = defineModule({
  name: 'authport',
  needs: ['leases'],
  services: (
    _platform: Platform,
    { leases }: { leases: Pick<LeaseService, 'getLease' | 'allocateAuthPort'> },
  ) => ({
    authport: createAuthPortService({ leases }),
  }),
  routes: registerAuthPortRoutes,
});
