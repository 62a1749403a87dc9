import { AppError, type TPortPackage } from '@pm/contracts';
import { checkWhitelist, type PortsCaller, type PortsContext, portsErrors } from './ports.context.ts';

/** How a package is reached: its IP whitelist, or its login and password. */
export function createPortAccess(ctx: PortsContext) {
  const { deps, repo } = ctx;
  return {
    /** Sets the whitelist and switches the package to whitelist access (not empty; 20 IPs, 1 for unlimited). */
    async updateWhitelist(caller: PortsCaller, packageId: string, ips: string[]): Promise<TPortPackage> {
      if (ips.length === 0) {
        throw new AppError('VALIDATION_FAILED', {
          message: 'whitelist_ips: at least one address',
          details: { field: 'whitelist_ips' },
        });
      }
      const row = await deps.db.transaction(async (tx) => {
        const p = await ctx.lockOwn(caller, packageId, tx);
        if (p.status === 'refunded') throw portsErrors.notFound();
        checkWhitelist(ips, p.trafficType === 'unlimit');
        return repo.updatePackage(p.id, { accessType: 'whitelist', whitelistIps: [...new Set(ips)] }, tx);
      });
      return ctx.readPackage(row);
    },

    /** Switches the package to login and password access (the generated pair; the whitelist is kept). */
    async switchToAuth(caller: PortsCaller, packageId: string): Promise<TPortPackage> {
      const row = await deps.db.transaction(async (tx) => {
        const p = await ctx.lockOwn(caller, packageId, tx);
        if (p.status === 'refunded') throw portsErrors.notFound();
        return repo.updatePackage(p.id, { accessType: 'auth' }, tx);
      });
      return ctx.readPackage(row);
    },
  };
}
