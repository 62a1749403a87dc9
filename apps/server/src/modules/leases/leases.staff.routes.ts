import { ENDPOINTS } from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import { registerEndpoint } from '../../platform/endpoint.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { StaffLeaseService } from './leases.staff.ts';

/** Staff lease routes: `GET /leases/{id}`, `GET /admin/leases?uid=&ip=`, `POST /admin/leases/{id}/credit`. */
export function registerStaffLeaseRoutes(app: ApiApp, deps: { staffLeases: StaffLeaseService }) {
  registerEndpoint(app, ENDPOINTS.getAdminLease, {
    handler: async (_req, { params }) => deps.staffLeases.getLease(params.id),
  });

  registerEndpoint(app, ENDPOINTS.findAdminLeases, {
    handler: async (_req, { query }) => deps.staffLeases.findLeases(query),
  });

  registerEndpoint(app, ENDPOINTS.creditLease, {
    rateLimit: { max: 30, timeWindow: 60_000 },
    handler: async (req, { params, body }) =>
      deps.staffLeases.creditLease(params.id, getPrincipal(req).userId, body.reason),
  });
}
