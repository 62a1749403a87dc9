import { ENDPOINTS, type TAuthPort, type TLease } from '@pm/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../app/context.tsx';
import { useToast } from '../../components/ui/Toasts.tsx';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import { invalidateLeases } from '../../lib/query/invalidate.ts';
import { queryKeys } from '../../lib/query/keys.ts';
import { updateCachedLease } from './queries.ts';

/** Answers these calls' own UI handles (a rollback, a toast) instead of the global error screen. */
const HANDLED_STATUSES = [400, 403, 404, 409, 422, 429, 500, 503] as const;

export const AUTH_PORT_ERROR_TEXT = 'Error creating port';
export const AUTH_PORT_SAVED_TEXT = 'Whitelist saved';
const TOAST_MS = 3_000;

/**
 * The Automatically renew switch (rules §4): the cached lease flips at once, `PATCH
 * /leases/{id}/autoRenew?set=` follows, and a refusal puts the switch back.
 */
export function useAutoRenewMutation(leaseId: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (set: boolean) =>
      callEndpoint(api, ENDPOINTS.setAutoRenew, {
        params: { id: leaseId },
        query: { set: set ? 'true' : 'false' },
        ignoreStatuses: HANDLED_STATUSES,
      }),
    onMutate: async (set) => {
      await queryClient.cancelQueries({ queryKey: queryKeys.leases.all });
      const before = updateCachedLease(queryClient, leaseId, (l) => ({ ...l, autoRenew: set }));
      return { before };
    },
    onError: (_error, _set, context) => {
      if (context?.before) queryClient.setQueryData(queryKeys.leases.active(), context.before);
    },
    onSuccess: (lease) => {
      updateCachedLease(queryClient, leaseId, () => lease);
    },
    onSettled: () => invalidateLeases(queryClient),
  });
}

/**
 * The lease note (rules §4): `PUT /agentnotes/{agentId}` with the trimmed text, or `DELETE` when it is
 * empty. The note belongs to the agent, so every lease on it shows the new text.
 */
export function useNoteMutation(agentId: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (note: string) => {
      const params = { agentId };
      if (note === '') await callEndpoint(api, ENDPOINTS.deleteAgentNote, { params, ignoreStatuses: [404] });
      else await callEndpoint(api, ENDPOINTS.setAgentNote, { params, body: { note } });
      return note;
    },
    onSuccess: (note) => {
      const leases = queryClient.getQueryData<TLease[]>(queryKeys.leases.active()) ?? [];
      for (const l of leases.filter((x) => x.agentId === agentId)) {
        updateCachedLease(queryClient, l.id, (lease) => ({ ...lease, note }));
      }
    },
  });
}

/**
 * Port NoAuth's Save: `POST /authport/create/{leaseId}` with the whitelist string as JSON (rules §7).
 * The answer's port goes into the cached lease; a failure shows 'Error creating port'.
 */
export function useAuthPortMutation(leaseId: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  const showToast = useToast();
  return useMutation({
    mutationFn: (whitelist: string) =>
      callEndpoint(api, ENDPOINTS.createAuthPort, {
        params: { id: leaseId },
        body: whitelist,
        ignoreStatuses: HANDLED_STATUSES,
      }),
    onSuccess: ({ authPort }: { authPort: TAuthPort }) => {
      updateCachedLease(queryClient, leaseId, (lease) => ({ ...lease, authPort }));
      showToast(AUTH_PORT_SAVED_TEXT, { autoHideMs: TOAST_MS });
    },
    onError: () => showToast(AUTH_PORT_ERROR_TEXT, { autoHideMs: TOAST_MS, severity: 'error' }),
  });
}
