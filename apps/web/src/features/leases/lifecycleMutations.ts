import { ENDPOINTS } from '@pm/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../app/context.tsx';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import { isApiError } from '../../lib/api/transport.ts';
import { invalidateBalance, invalidateLeases } from '../../lib/query/invalidate.ts';
import {
  type RefundResult,
  type RenewResult,
  refundResultOf,
  renewResultOf,
  renewResultOfAnswer,
} from './lifecycle.ts';

/** Statuses the renew and refund dialogs explain; 401 and 502 still go to sign-in and maintenance. */
const HANDLED_STATUSES = [400, 402, 403, 404, 409, 422, 429, 500, 503] as const;

/**
 * Renew (`PATCH /leases/{id}`): resolves with the result, never rejects. RENEWED refreshes the
 * balance and the leases (rules §4).
 */
export function useRenewMutation(leaseId: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation<RenewResult>({
    mutationFn: async () => {
      try {
        const answer = await callEndpoint(api, ENDPOINTS.renewLease, {
          params: { id: leaseId },
          ignoreStatuses: HANDLED_STATUSES,
        });
        return renewResultOfAnswer(answer);
      } catch (e) {
        return renewResultOf(isApiError(e) ? e.status : null);
      }
    },
    // Not awaited: the caller's own callbacks run at once, before the reload can unmount the
    // refunded lease's detail (a callback of an unmounted caller is dropped).
    onSuccess: (result) => {
      if (result !== 'RENEW_STATUS_RENEWED') return;
      void Promise.all([invalidateLeases(queryClient), invalidateBalance(queryClient)]);
    },
  });
}

/**
 * Refund (`DELETE /leases/{id}`): resolves with the result, never rejects. REFUNDED reloads the
 * account, the leases and the payments (rules §4).
 */
export function useRefundMutation(leaseId: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation<RefundResult>({
    mutationFn: async () => {
      try {
        await callEndpoint(api, ENDPOINTS.refundLease, {
          params: { id: leaseId },
          ignoreStatuses: HANDLED_STATUSES,
        });
        return 'REFUND_STATUS_REFUNDED';
      } catch (e) {
        return isApiError(e) ? refundResultOf(e.status, e.body) : 'REFUND_STATUS_FAILED';
      }
    },
    // Not awaited: the caller's own callbacks run at once, before the reload can unmount the
    // refunded lease's detail (a callback of an unmounted caller is dropped).
    onSuccess: (result) => {
      if (result !== 'REFUND_STATUS_REFUNDED') return;
      void Promise.all([invalidateLeases(queryClient), invalidateBalance(queryClient)]);
    },
  });
}
