import { ENDPOINTS, type TTxRecordsResponse } from '@pm/contracts';
import {
  infiniteQueryOptions,
  keepPreviousData,
  type QueryClient,
  queryOptions,
} from '@tanstack/react-query';
import { DATA_REFRESH_MS } from '../../app/queryClient.ts';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import type { ApiClient } from '../../lib/api/transport.ts';
import { queryKeys } from '../../lib/query/keys.ts';
import { type DateRange, rangeQuery } from './dateRange.ts';

/** The Payments page shows 10 rows a page, with no other choice (rules §2, 9). */
export const PAYMENTS_PAGE_SIZE = 10;

function fetchTxRecords(
  api: ApiClient,
  range: DateRange,
  offset: number,
  options: { signal: AbortSignal; ignoreOffline: boolean },
): Promise<TTxRecordsResponse> {
  return callEndpoint(api, ENDPOINTS.listTxRecords, {
    query: { offset, limit: PAYMENTS_PAGE_SIZE, ...rangeQuery(range) },
    ...options,
  });
}

/**
 * One page of the desktop table (`GET /txrecords`, newest first). The previous page stays on screen
 * while the next loads; refreshes every 20 s like the other history data (rules §4), ignoring an
 * unreachable server on a refresh.
 */
export const txRecordsPageQuery = (
  api: ApiClient,
  queryClient: QueryClient,
  range: DateRange,
  page: number,
) =>
  queryOptions({
    queryKey: queryKeys.payments.page(range, page),
    queryFn: ({ signal }) =>
      fetchTxRecords(api, range, page * PAYMENTS_PAGE_SIZE, {
        signal,
        ignoreOffline: queryClient.getQueryData(queryKeys.payments.page(range, page)) !== undefined,
      }),
    placeholderData: keepPreviousData,
    refetchInterval: DATA_REFRESH_MS,
  });

/** The phone's list: pages of 10 added by Show more payments until `total` rows are loaded. */
export const txRecordsMoreQuery = (api: ApiClient, queryClient: QueryClient, range: DateRange) =>
  infiniteQueryOptions({
    queryKey: queryKeys.payments.more(range),
    queryFn: ({ signal, pageParam }) =>
      fetchTxRecords(api, range, pageParam, {
        signal,
        ignoreOffline: queryClient.getQueryData(queryKeys.payments.more(range)) !== undefined,
      }),
    initialPageParam: 0,
    getNextPageParam: (last, pages) => {
      const loaded = pages.reduce((n, p) => n + p.txRecords.length, 0);
      return last.txRecords.length > 0 && loaded < last.total ? loaded : undefined;
    },
    placeholderData: keepPreviousData,
    refetchInterval: DATA_REFRESH_MS,
  });
