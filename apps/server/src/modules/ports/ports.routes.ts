import { ENDPOINTS, LEASE_TRAFFIC_CSV_HEADER } from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import { registerEndpoint } from '../../platform/endpoint.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { PortsCaller, PortsService } from './ports.service.ts';

const minute = 60_000;

function caller(req: Parameters<typeof getPrincipal>[0]): PortsCaller {
  const p = getPrincipal(req);
  return { userId: p.userId, email: p.email, isStaff: p.isStaff };
}

/**
 * The Ports API (rules §7) on its own base address (the ports listener): the operations of
 * `PORTS_ENDPOINTS` with `api: 'ports'`. Every one but the rotation link needs the customer's
 * bearer token and acts only on the caller's packages.
 */
export function registerPortsApiRoutes(app: ApiApp, deps: { ports: PortsService }): void {
  const { ports } = deps;
  registerEndpoint(app, ENDPOINTS.quotePortPrice, {
    rateLimit: { max: 300, timeWindow: minute },
    handler: async (_req, { body }) => ports.price(body),
  });
  registerEndpoint(app, ENDPOINTS.createPortPackage, {
    rateLimit: { max: 20, timeWindow: minute },
    handler: async (req, { body, headers }) =>
      ports.createPackage(caller(req), body, headers['idempotency-key']),
  });
  registerEndpoint(app, ENDPOINTS.listPortPackages, {
    handler: async (req, { params }) => ports.listPackages(caller(req), params.id),
  });
  registerEndpoint(app, ENDPOINTS.updatePortWhitelist, {
    rateLimit: { max: 60, timeWindow: minute },
    handler: async (req, { body }) => ports.updateWhitelist(caller(req), body.package_id, body.whitelist_ips),
  });
  registerEndpoint(app, ENDPOINTS.switchPortToLogin, {
    rateLimit: { max: 60, timeWindow: minute },
    handler: async (req, { params }) => ports.switchToAuth(caller(req), params.id),
  });
  registerEndpoint(app, ENDPOINTS.refundPortPackage, {
    rateLimit: { max: 30, timeWindow: minute },
    handler: async (req, { params, headers }) =>
      ports.refundPackage(caller(req), params.id, headers['idempotency-key']),
  });
  registerEndpoint(app, ENDPOINTS.reactivatePortPackage, {
    rateLimit: { max: 30, timeWindow: minute },
    handler: async (req, { params, headers }) =>
      ports.reactivatePackage(caller(req), params.id, headers['idempotency-key']),
  });
  registerEndpoint(app, ENDPOINTS.listPortCountries, { handler: async () => ports.listCountries() });
  registerEndpoint(app, ENDPOINTS.listPortStates, {
    handler: async (_req, { query }) => ports.listStates(query.country),
  });
  registerEndpoint(app, ENDPOINTS.listPortCities, {
    handler: async (_req, { query }) => ports.listCities(query.country, query.state ?? ''),
  });
  registerEndpoint(app, ENDPOINTS.getPortTraffic, {
    handler: async (req, { params }) => ports.getTraffic(caller(req), params.id),
  });
  registerEndpoint(app, ENDPOINTS.downloadPortTrafficCsv, {
    handler: async (req, { params }, reply) => {
      const traffic = await ports.getTraffic(caller(req), params.id);
      const lines = traffic.hours.map((h) => `${h.hour},${h.reqs},${h.fails},${h.inBytes},${h.outBytes}`);
      reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="package-${traffic.packageID}-traffic.csv"`);
      return `${[LEASE_TRAFFIC_CSV_HEADER, ...lines].join('\n')}\n`;
    },
  });
  // The rotation link: no token (scripts call it), the port and its package's key; 5-minute rule in the service.
  registerEndpoint(app, ENDPOINTS.rotatePortIp, {
    rateLimit: { max: 60, timeWindow: minute },
    handler: async (_req, { params }) => ports.rotatePort(params.port, params.key),
  });
}

/** `GET|PUT /pricing/ports` (staff, on the market API): the port price table. */
export function registerPortsStaffRoutes(app: ApiApp, deps: { ports: PortsService }): void {
  registerEndpoint(app, ENDPOINTS.getPortPricing, { handler: async () => deps.ports.getPricing() });
  registerEndpoint(app, ENDPOINTS.replacePortPricing, {
    rateLimit: { max: 30, timeWindow: minute },
    handler: async (req, { body }) => deps.ports.replacePricing(body.rows, getPrincipal(req).userId),
  });
}
