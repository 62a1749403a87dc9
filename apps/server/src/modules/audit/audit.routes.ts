import { ENDPOINTS } from '@pm/contracts';
import { registerEndpoint } from '../../platform/endpoint.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { AuditService } from './audit.service.ts';

/** `GET /admin/audit` (staff): the audit trail with filters (actor, target, action, from/to) and paging. */
export function registerAuditRoutes(app: ApiApp, deps: { audit: Pick<AuditService, 'list'> }): void {
  registerEndpoint(app, ENDPOINTS.listAuditEntries, {
    handler: async (_req, { query }) => deps.audit.list(query),
  });
}
