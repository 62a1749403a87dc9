import { ENDPOINTS, type TLease, type TLeasePurchaseBody } from '@pm/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../app/context.tsx';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import { isApiError } from '../../lib/api/transport.ts';
import { priceFor } from '../../lib/format/agent.ts';
import { invalidateAgents, invalidateBalance, invalidateLeases } from '../../lib/query/invalidate.ts';
import { type PurchaseFailure, type PurchaseOrder, purchaseFailureOf, reloadsProxies } from './purchase.ts';

/** Statuses the purchase dialogs explain; 401 and 502 still go to sign-in and maintenance. */
const PURCHASE_HANDLED_STATUSES = [400, 402, 403, 404, 409, 422, 429, 500, 503] as const;

export interface PurchaseRequest {
  order: PurchaseOrder;
  /** True first: the server tests the proxy before selling it (rules §7 `probe`). */
  probe: boolean;
}

/**
 * `POST /leases` for an order at the price the shop showed. Success reloads the proxy list, account,
 * leases and payments; a refusal comes back as the PurchaseFailure to show, after reloading the
 * proxy when it moved on (price, parameters, sold or gone).
 */
export function usePurchaseMutation() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation<TLease, PurchaseFailure, PurchaseRequest>({
    mutationFn: async ({ order, probe }) => {
      const body: TLeasePurchaseBody = {
        agentID: order.agent.id,
        expPriceC: priceFor(order.agent, order.exc),
        probe,
        exc: order.exc,
      };
      try {
        return await callEndpoint(api, ENDPOINTS.createLease, {
          body,
          ignoreStatuses: PURCHASE_HANDLED_STATUSES,
        });
      } catch (e) {
        throw isApiError(e) ? purchaseFailureOf(e.status, e.body) : { step: 'GENERIC_ERROR' };
      }
    },
    onSuccess: () =>
      Promise.all([
        invalidateAgents(queryClient),
        invalidateLeases(queryClient),
        invalidateBalance(queryClient),
      ]),
    onError: async (failure) => {
      if (reloadsProxies(failure.step)) await invalidateAgents(queryClient);
    },
  });
}
