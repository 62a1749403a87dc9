import {
  LEASE_TRAFFIC_CSV_HEADER,
  ZErrorBody,
  ZIdempotencyKeyHeaders,
  ZNewPortRequest,
  ZPortCities,
  ZPortCountries,
  ZPortGeoListQuery,
  ZPortPackage,
  ZPortPackageParams,
  ZPortPackages,
  ZPortPriceRequest,
  ZPortPriceResponse,
  ZPortPricing,
  ZPortPricingBody,
  ZPortRotateParams,
  ZPortRotateResponse,
  ZPortStates,
  ZPortTrafficResponse,
  ZPortUserParams,
  ZPortWhitelistRequest,
} from '@pm/contracts';
import { z } from 'zod';
import { getPrincipal } from '../../platform/auth.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { PortsCaller, PortsService } from './ports.service.ts';

/** Errors carry `error` (SPEC 7); a stale price answers the price, the rotation rule when to retry. */
const ZPortsError = ZErrorBody.extend({
  price: z.number().int().optional(),
  retryAfterSeconds: z.number().int().optional(),
});
const errors = {
  400: ZPortsError,
  401: ZPortsError,
  402: ZPortsError,
  403: ZPortsError,
  404: ZPortsError,
  409: ZPortsError,
  429: ZPortsError,
  503: ZPortsError,
};
const tags = ['ports'];
const minute = 60_000;

function caller(req: Parameters<typeof getPrincipal>[0]): PortsCaller {
  const p = getPrincipal(req);
  return { userId: p.userId, email: p.email, isStaff: p.isStaff };
}

/**
 * The Ports API (SPEC section 7) on its own base address (the ports listener): every route but
 * the rotation link needs the customer's bearer token and acts only on the caller's packages.
 */
export function registerPortsApiRoutes(app: ApiApp, deps: { ports: PortsService }): void {
  app.post(
    '/price',
    {
      config: { auth: 'user', rateLimit: { max: 300, timeWindow: minute } },
      schema: { tags, body: ZPortPriceRequest, response: { 200: ZPortPriceResponse, ...errors } },
    },
    async (req) => deps.ports.price(req.body),
  );
  app.post(
    '/package/create',
    {
      config: { auth: 'user', rateLimit: { max: 20, timeWindow: minute } },
      schema: {
        tags,
        headers: ZIdempotencyKeyHeaders,
        body: ZNewPortRequest,
        response: { 200: ZPortPackage, ...errors },
      },
    },
    async (req) => deps.ports.createPackage(caller(req), req.body, req.headers['idempotency-key']),
  );
  app.get(
    '/users/:id/packages',
    {
      config: { auth: 'user' },
      schema: { tags, params: ZPortUserParams, response: { 200: ZPortPackages, ...errors } },
    },
    async (req) => deps.ports.listPackages(caller(req), req.params.id),
  );
  app.post(
    '/port/update/whitelist',
    {
      config: { auth: 'user', rateLimit: { max: 60, timeWindow: minute } },
      schema: { tags, body: ZPortWhitelistRequest, response: { 200: ZPortPackage, ...errors } },
    },
    async (req) => deps.ports.updateWhitelist(caller(req), req.body.package_id, req.body.whitelist_ips),
  );
  app.get(
    '/port/update/auth/:id',
    {
      config: { auth: 'user', rateLimit: { max: 60, timeWindow: minute } },
      schema: { tags, params: ZPortPackageParams, response: { 200: ZPortPackage, ...errors } },
    },
    async (req) => deps.ports.switchToAuth(caller(req), req.params.id),
  );
  app.get(
    '/package/refund/:id',
    {
      config: { auth: 'user', rateLimit: { max: 30, timeWindow: minute } },
      schema: { tags, params: ZPortPackageParams, response: { 200: ZPortPackage, ...errors } },
    },
    async (req) => deps.ports.refundPackage(caller(req), req.params.id),
  );
  app.get(
    '/package/reactivate/:id',
    {
      config: { auth: 'user', rateLimit: { max: 30, timeWindow: minute } },
      schema: { tags, params: ZPortPackageParams, response: { 200: ZPortPackage, ...errors } },
    },
    async (req) => deps.ports.reactivatePackage(caller(req), req.params.id),
  );
  app.get(
    '/list/full',
    { config: { auth: 'user' }, schema: { tags, response: { 200: ZPortCountries, ...errors } } },
    async () => deps.ports.listCountries(),
  );
  app.get(
    '/list/geo/state',
    {
      config: { auth: 'user' },
      schema: {
        tags,
        querystring: ZPortGeoListQuery.extend({ country: z.string().trim().min(1).max(100) }),
        response: { 200: ZPortStates, ...errors },
      },
    },
    async (req) => deps.ports.listStates(req.query.country),
  );
  app.get(
    '/list/geo/city',
    {
      config: { auth: 'user' },
      schema: {
        tags,
        querystring: ZPortGeoListQuery.extend({ country: z.string().trim().min(1).max(100) }),
        response: { 200: ZPortCities, ...errors },
      },
    },
    async (req) => deps.ports.listCities(req.query.country, req.query.state ?? ''),
  );
  app.get(
    '/package/traffic/:id',
    {
      config: { auth: 'user' },
      schema: { tags, params: ZPortPackageParams, response: { 200: ZPortTrafficResponse, ...errors } },
    },
    async (req) => deps.ports.getTraffic(caller(req), req.params.id),
  );
  app.get(
    '/package/traffic/:id.csv',
    {
      config: { auth: 'user' },
      schema: { tags, params: ZPortPackageParams, response: { 200: z.string(), ...errors } },
    },
    async (req, reply) => {
      const traffic = await deps.ports.getTraffic(caller(req), req.params.id);
      const lines = traffic.hours.map((h) => `${h.hour},${h.reqs},${h.fails},${h.inBytes},${h.outBytes}`);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="package-${traffic.packageID}-traffic.csv"`)
        .send(`${[LEASE_TRAFFIC_CSV_HEADER, ...lines].join('\n')}\n`);
    },
  );
  // The rotation link: no token (scripts call it), the port and its package's key; 5-minute rule in the service.
  app.get(
    '/port/change/ip/:port/:key',
    {
      config: { auth: 'public', rateLimit: { max: 60, timeWindow: minute } },
      schema: { tags, params: ZPortRotateParams, response: { 200: ZPortRotateResponse, ...errors } },
    },
    async (req) => deps.ports.rotatePort(req.params.port, req.params.key),
  );
}

/** `GET|PUT /pricing/ports` (staff, on the market API): the port price table. */
export function registerPortsStaffRoutes(app: ApiApp, deps: { ports: PortsService }): void {
  const staffErrors = { 400: ZErrorBody, 401: ZErrorBody, 403: ZErrorBody };
  app.get(
    '/pricing/ports',
    {
      config: { auth: 'staff' },
      schema: { tags: ['admin'], response: { 200: ZPortPricing, ...staffErrors } },
    },
    async () => deps.ports.getPricing(),
  );
  app.put(
    '/pricing/ports',
    {
      config: { auth: 'staff', rateLimit: { max: 30, timeWindow: minute } },
      schema: { tags: ['admin'], body: ZPortPricingBody, response: { 200: ZPortPricing, ...staffErrors } },
    },
    async (req) => deps.ports.replacePricing(req.body.rows, getPrincipal(req).userId),
  );
}
