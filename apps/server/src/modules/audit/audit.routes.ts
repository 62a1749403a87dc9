import { ZAuditQuery, ZAuditResponse, ZErrorBody } from '@pm/contracts';
import type { ApiApp } from '../../platform/module.ts';
import type { AuditService } from './audit.service.ts';

const errors = { 400: ZErrorBody, 401: ZErrorBody, 403: ZErrorBody };

/** `GET /admin/audit` (staff): the audit trail with filters (actor, target, action, from/to) and paging. */
export function registerAuditRoutes(app: ApiApp, deps: { audit: Pick<AuditService, 'list'> }): void {
  app.get(
    '/admin/audit',
    {
      config: { auth: 'staff' },
      schema: { tags: ['admin'], querystring: ZAuditQuery, response: { 200: ZAuditResponse, ...errors } },
    },
    async (req) => deps.audit.list(req.query),
  );
}
