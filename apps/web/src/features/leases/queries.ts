import { ENDPOINTS, type TLease } from '@pm/contracts';
import { type QueryClient, queryOptions } from '@tanstack/react-query';
import { DATA_REFRESH_MS } from '../../app/queryClient.ts';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import type { ApiClient } from '../../lib/api/transport.ts';
import { queryKeys } from '../../lib/query/keys.ts';

/** A bound on `GET /leases` pages, so a server that never answers cursor 0 cannot loop us forever. */
const MAX_LEASE_PAGES = 100;

/**
 * The caller's active leases: `GET /leases?cursor=` repeated until the cursor is 0 (rules §7).
 * Refreshes every 20 s; a refresh that finds the server unreachable is ignored (rules §4).
 */
export const activeLeasesQuery = (api: ApiClient, queryClient: QueryClient) =>
  queryOptions({
    queryKey: queryKeys.leases.active(),
    queryFn: async ({ signal }): Promise<TLease[]> => {
      const ignoreOffline = queryClient.getQueryData(queryKeys.leases.active()) !== undefined;
      const leases: TLease[] = [];
      let cursor = 0;
      for (let page = 0; page < MAX_LEASE_PAGES; page++) {
        const answer = await callEndpoint(api, ENDPOINTS.listLeases, {
          query: { cursor },
          signal,
          ignoreOffline,
        });
        leases.push(...answer.leases);
        if (answer.cursor === 0) break;
        cursor = answer.cursor;
      }
      return leases;
    },
    refetchInterval: DATA_REFRESH_MS,
    refetchIntervalInBackground: true,
  });

/** Replaces one lease in the cached list (after an answer that carries the whole lease, or optimistically). */
export function updateCachedLease(
  queryClient: QueryClient,
  id: string,
  update: (lease: TLease) => TLease,
): TLease[] | undefined {
  const before = queryClient.getQueryData<TLease[]>(queryKeys.leases.active());
  if (before) {
    queryClient.setQueryData<TLease[]>(
      queryKeys.leases.active(),
      before.map((l) => (l.id === id ? update(l) : l)),
    );
  }
  return before;
}
