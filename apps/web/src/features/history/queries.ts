import { ENDPOINTS, type TLeaseHistoryResponse } from '@pm/contracts';
import { keepPreviousData, type QueryClient, queryOptions } from '@tanstack/react-query';
import { DATA_REFRESH_MS } from '../../app/queryClient.ts';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import type { ApiClient } from '../../lib/api/transport.ts';
import { queryKeys } from '../../lib/query/keys.ts';
import { type HistoryView, historyQuery } from './rules.ts';

/**
 * One page of `GET /leaseHistory` (rules §7); refreshes every 20 s like the other lease data, and a
 * refresh that finds the server unreachable is ignored. A failed load simply ends (rules §8).
 */
export const leaseHistoryQuery = (api: ApiClient, queryClient: QueryClient, view: HistoryView) =>
  queryOptions({
    queryKey: queryKeys.leases.historyPage(view),
    queryFn: ({ signal }): Promise<TLeaseHistoryResponse> =>
      callEndpoint(api, ENDPOINTS.listLeaseHistory, {
        query: historyQuery(view),
        signal,
        ignoreOffline: queryClient.getQueryData(queryKeys.leases.historyPage(view)) !== undefined,
        ignoreStatuses: [400, 404, 500, 503],
      }),
    placeholderData: keepPreviousData,
    refetchInterval: DATA_REFRESH_MS,
    retry: false,
  });
