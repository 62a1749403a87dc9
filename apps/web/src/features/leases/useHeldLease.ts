import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { useApi, useIsMobile } from '../../app/context.tsx';
import { findHeldLease, type HeldLeaseState, heldLeasePath } from './heldLease.ts';
import { activeLeasesQuery } from './queries.ts';

export interface HeldLeaseActions {
  /** The caller's active lease on an agent, asked of the server afresh (one bought a moment ago counts). */
  find(agentId: string): Promise<string | undefined>;
  /** Opens that lease in My Proxies, which says the customer already holds it. */
  open(leaseId: string): void;
}

/** Finding and opening a lease the customer already holds (heldLease.ts). */
export function useHeldLease(): HeldLeaseActions {
  const api = useApi();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const isMobile = useIsMobile();
  const find = useCallback(
    async (agentId: string) => {
      const leases = await queryClient
        .fetchQuery({ ...activeLeasesQuery(api, queryClient), staleTime: 0 })
        .catch(() => []);
      return findHeldLease(leases, agentId)?.id;
    },
    [api, queryClient],
  );
  const open = useCallback(
    (leaseId: string) => {
      const state: HeldLeaseState = { alreadyHeld: true };
      void navigate(heldLeasePath(leaseId, isMobile), { state });
    },
    [navigate, isMobile],
  );
  return { find, open };
}
