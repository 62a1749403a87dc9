import { ENDPOINTS, type TStaticAgent, type TStaticLeaseBody } from '@pm/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../app/context.tsx';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import { isApiError } from '../../lib/api/transport.ts';
import { invalidateBalance, invalidateLeases, invalidateStatic } from '../../lib/query/invalidate.ts';
import { reloadsStaticList, type StaticLeaseFailure, staticLeaseFailureOf } from './rules.ts';

/** Statuses the dialogs explain; 401 and 502 still go to sign-in and maintenance. */
const HANDLED_STATUSES = [400, 402, 403, 404, 409, 422, 429, 500, 503] as const;

/**
 * `POST /static/lease` with the agent id as a string and the price shown (rules §5, 7). Success
 * reloads the static list, account, leases and payments; a refusal comes back as its failure.
 */
export function useStaticLeaseMutation() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation<unknown, StaticLeaseFailure, TStaticAgent>({
    mutationFn: async (agent) => {
      const body: TStaticLeaseBody = { agentID: String(agent.id), expPriceC: agent.priceC };
      try {
        return await callEndpoint(api, ENDPOINTS.leaseStaticAgent, {
          body,
          ignoreStatuses: HANDLED_STATUSES,
        });
      } catch (e) {
        throw isApiError(e) ? staticLeaseFailureOf(e.status, e.body) : 'GENERIC_ERROR';
      }
    },
    onSuccess: () =>
      Promise.all([
        invalidateStatic(queryClient),
        invalidateLeases(queryClient),
        invalidateBalance(queryClient),
      ]),
    onError: async (failure) => {
      if (reloadsStaticList(failure)) await invalidateStatic(queryClient);
    },
  });
}
