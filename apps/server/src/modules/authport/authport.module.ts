import type { RouteModule } from '../../app.ts';
import { getPrincipal } from '../../platform/auth.ts';
import { createLeaseService } from '../leases/lease.service.ts';
import { register } from './authport.routes.ts';
import { createAuthPortService } from './authport.service.ts';

/** Wires `POST /authport/create/{id}` to the lease service for the signed-in caller. */
export const authportModule: RouteModule = (app, core) => {
  const leases = createLeaseService({ db: core.db.db });
  register(app, {
    authport: createAuthPortService({ leases }),
    getCaller: (request) => {
      const p = getPrincipal(request);
      return { userId: p.userId, isStaff: p.isStaff };
    },
  });
};
