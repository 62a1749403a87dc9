import { defineModule, type Platform } from '../../platform/module.ts';
import { registerAuditRoutes } from './audit.routes.ts';
import { createAuditService } from './audit.service.ts';

/**
 * Audit: the staff audit trail (`audit_log`). Modules that let staff change money, permissions or
 * leases need `audit` and call `audit.record(tx, row)` inside the transaction of the change;
 * `GET /admin/audit` lists the rows for staff.
 */
export const auditModule = defineModule({
  name: 'audit',
  needs: [],
  services: (platform: Platform) => ({
    audit: createAuditService({ db: platform.db.db }),
  }),
  routes: registerAuditRoutes,
});
