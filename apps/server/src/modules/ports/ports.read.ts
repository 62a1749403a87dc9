import { AppError, type TPortPackage, type TPortTrafficResponse } from '@pm/contracts';
import type { PortsCaller, PortsContext } from './ports.context.ts';
import { portsErrors } from './ports.context.ts';
import { toPackage } from './ports.mapper.ts';
import type { NodeRow } from './ports.repository.ts';

/** Reading packages, their traffic, and where exits are (the geo lists of the New Port dialog). */
export function createPortReads(ctx: PortsContext) {
  const { deps, repo } = ctx;
  return {
    /** The caller's packages, newest first (staff may read anyone's). */
    async listPackages(caller: PortsCaller, userId: string): Promise<{ packages: TPortPackage[] }> {
      if (userId !== caller.userId && !caller.isStaff) {
        throw new AppError('FORBIDDEN', { message: 'not the caller', userMessage: 'Forbidden' });
      }
      const rows = await repo.findPackagesOfUser(userId);
      const ports = await repo.findPorts(rows.map((r) => r.id));
      const exits = await repo.findExits(rows.map((r) => r.id));
      const nodes = new Map<string, NodeRow | undefined>();
      for (const r of rows) if (!nodes.has(r.nodeId)) nodes.set(r.nodeId, await repo.findNode(r.nodeId));
      const nowMs = deps.now();
      return {
        packages: rows.map((r) =>
          toPackage(r, nodes.get(r.nodeId), ports.get(r.id) ?? [], nowMs, exits.get(r.id)),
        ),
      };
    },

    /** The caller's package's traffic per UTC hour (another's is NOT_FOUND). */
    async getTraffic(caller: PortsCaller, packageId: string): Promise<TPortTrafficResponse> {
      const p = await repo.findPackage(packageId);
      if (!p || (p.userId !== caller.userId && !caller.isStaff)) throw portsErrors.notFound();
      const rows = await repo.findTrafficHours(p.id);
      return {
        packageID: p.id,
        hours: rows.map((r) => ({
          hour: r.hour.toISOString(),
          reqs: r.reqs,
          fails: r.fails,
          authFails: r.authFails,
          inBytes: r.inBytes,
          outBytes: r.outBytes,
        })),
      };
    },

    /** Countries with exits now. */
    async listCountries(): Promise<{ countries: { code: string; name: string; count: number }[] }> {
      const names = new Intl.DisplayNames(['en'], { type: 'region' });
      const rows = await repo.countExitsByCountry();
      return {
        countries: rows
          .filter((r) => /^[A-Z]{2}$/.test(r.name))
          .map((r) => ({ code: r.name, name: names.of(r.name) ?? r.name, count: r.count })),
      };
    },

    /** States (the agents' regions) of a country with exits now. */
    async listStates(country: string): Promise<{ states: { name: string; count: number }[] }> {
      return { states: await repo.countExitsBy('reg', { country: country.toUpperCase(), state: '' }) };
    },

    /** Cities of a country (and state) with exits now. */
    async listCities(country: string, state: string): Promise<{ cities: { name: string; count: number }[] }> {
      return { cities: await repo.countExitsBy('city', { country: country.toUpperCase(), state }) };
    },
  };
}
