import { ENDPOINTS, type TCryptoCreateRequest, type TCryptoCreateResponse } from '@pm/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../app/context.tsx';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import { isApiError } from '../../lib/api/transport.ts';
import { invalidateAccount } from '../../lib/query/invalidate.ts';
import { type OpenCharge, saveOpenCharge } from '../charges/chargeStore.ts';

/**
 * Statuses the form answers with 'Payment Error: Please try again later.' instead of the global
 * error screen (rules §8 "Payment"); 401 and 502 still sign in again and show maintenance.
 */
const CREATE_HANDLED_STATUSES = [400, 403, 404, 409, 422, 429, 500, 503, 504] as const;

/**
 * `POST /crypto/create` (rules §7 "Payment calls"): `amount` in integer cents. The created charge is
 * kept in local storage for the form to show until it is reset, paid or expired (rules §4). A 403
 * (DEPOSIT revoked meanwhile) reloads the account, so the form turns to 'Your account is under review'.
 */
export function useCreateChargeMutation() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation<{ charge: TCryptoCreateResponse; open: OpenCharge }, unknown, TCryptoCreateRequest>({
    mutationFn: async (body) => {
      const charge = await callEndpoint(api, ENDPOINTS.createCharge, {
        body,
        ignoreStatuses: CREATE_HANDLED_STATUSES,
      });
      return { charge, open: saveOpenCharge(window.localStorage, charge) };
    },
    onError: async (e) => {
      if (isApiError(e) && e.status === 403) await invalidateAccount(queryClient);
    },
  });
}
