import { CHARGE_POLL_MS, ENDPOINTS, type TChargePage, ZChargeCode } from '@pm/contracts';
import { type QueryClient, queryOptions } from '@tanstack/react-query';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import { type ApiClient, isApiError } from '../../lib/api/transport.ts';
import { queryKeys } from '../../lib/query/keys.ts';
import { isPollingDone } from './status.ts';

/** Statuses a background poll shrugs off (401 and 502 still sign in again and show maintenance). */
const POLL_IGNORED_STATUSES = [404, 429, 500, 503, 504] as const;

/** A code that cannot name a charge is not asked for: the page says "not found" at once. */
export const isChargeCode = (code: string): boolean => ZChargeCode.safeParse(code).success;

/**
 * A charge page (rules §2): first `GET /crypto/charges/{code}`, then `POST /crypto/check` with its uid
 * every CHARGE_POLL_MS (30 s) until it is paid (rules §4 "Charge", 7 "Payment calls"). A 404 answers
 * null (no such charge, or another user's). Polls that find the server unreachable are ignored, so
 * a tab left open through an outage keeps its page.
 */
export const chargeQuery = (api: ApiClient, queryClient: QueryClient, code: string) =>
  queryOptions({
    queryKey: queryKeys.charges.detail(code),
    queryFn: async ({ signal }): Promise<TChargePage | null> => {
      const known = queryClient.getQueryData<TChargePage | null>(queryKeys.charges.detail(code));
      if (known) {
        const answer = await callEndpoint(api, ENDPOINTS.checkCharge, {
          body: { uid: known.uid },
          // A failed poll keeps the page as it was; the next one tries again.
          ignoreStatuses: POLL_IGNORED_STATUSES,
          ignoreOffline: true,
          signal,
        });
        return answer.data;
      }
      try {
        return await callEndpoint(api, ENDPOINTS.getChargePage, {
          params: { code },
          ignoreStatuses: [400, 404],
          signal,
        });
      } catch (e) {
        if (isApiError(e) && (e.status === 400 || e.status === 404)) return null;
        throw e;
      }
    },
    enabled: isChargeCode(code),
    refetchInterval: (query) => {
      const data = query.state.data;
      return data && !isPollingDone(data.status) ? CHARGE_POLL_MS : false;
    },
    refetchIntervalInBackground: true,
  });
