import {
  ZAdminLease,
  ZAdminLeasesQuery,
  ZAdminLeasesResponse,
  ZErrorBody,
  ZLeaseCreditRequest,
  ZLeaseCreditResult,
  ZLeaseIdParams,
} from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { StaffLeaseService } from './leases.staff.ts';

const errors = { 400: ZErrorBody, 401: ZErrorBody, 403: ZErrorBody, 404: ZErrorBody, 429: ZErrorBody };

/** Staff lease routes: `GET /leases/{id}`, `GET /admin/leases?uid=&ip=`, `POST /admin/leases/{id}/credit`. */
export function registerStaffLeaseRoutes(app: ApiApp, deps: { staffLeases: StaffLeaseService }) {
  app.get(
    '/leases/:id',
    {
      config: { auth: 'staff' },
      schema: { tags: ['admin'], params: ZLeaseIdParams, response: { 200: ZAdminLease, ...errors } },
    },
    async (req) => deps.staffLeases.getLease(req.params.id),
  );

  app.get(
    '/admin/leases',
    {
      config: { auth: 'staff' },
      schema: {
        tags: ['admin'],
        querystring: ZAdminLeasesQuery,
        response: { 200: ZAdminLeasesResponse, ...errors },
      },
    },
    async (req) => deps.staffLeases.findLeases(req.query),
  );

  app.post(
    '/admin/leases/:id/credit',
    {
      config: { auth: 'staff', rateLimit: { max: 30, timeWindow: 60_000 } },
      schema: {
        tags: ['admin'],
        params: ZLeaseIdParams,
        body: ZLeaseCreditRequest,
        response: { 200: ZLeaseCreditResult, ...errors, 409: ZErrorBody },
      },
    },
    async (req) => deps.staffLeases.creditLease(req.params.id, getPrincipal(req).userId, req.body.reason),
  );
}
