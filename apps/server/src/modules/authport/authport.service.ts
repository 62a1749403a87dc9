import { AppError, type TAuthPortCreateResponse } from '@pm/contracts';
import type { LeaseService } from '../leases/leases.service.ts';

/** What the no-auth port service is built from. */
export interface AuthPortServiceDeps {
  leases: Pick<LeaseService, 'getLease' | 'allocateAuthPort'>;
}

/** Who asks: the signed-in user, and whether they are staff. */
export interface Caller {
  userId: string;
  isStaff: boolean;
}

/** The no-auth port service's functions (derived from the factory). */
export type AuthPortService = ReturnType<typeof createAuthPortService>;

/** No-auth ports of leases (rules §7 `POST /authport/create/{id}`). */
export function createAuthPortService(deps: AuthPortServiceDeps) {
  return {
    /**
     * Allocates (or keeps) the lease's no-auth port on its node and stores the whitelist. Only the
     * lease's owner (or staff) may; another user's lease is NOT_FOUND so ids cannot be probed.
     */
    async createAuthPort(
      caller: Caller,
      leaseId: string,
      whitelist: string | readonly string[],
    ): Promise<TAuthPortCreateResponse> {
      const lease = await deps.leases.getLease(leaseId);
      if (lease.user !== caller.userId && !caller.isStaff) {
        throw new AppError('NOT_FOUND', { userMessage: 'Lease not found' });
      }
      const authPort = await deps.leases.allocateAuthPort(leaseId, whitelist);
      return { status: 'AUTHPORT_CREATED', authPort };
    },
  };
}
