import { ENDPOINTS, type TAccount } from '@pm/contracts';
import { type QueryClient, queryOptions } from '@tanstack/react-query';
import { DATA_REFRESH_MS } from '../../app/queryClient.ts';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import { type ApiClient, isApiError } from '../../lib/api/transport.ts';
import { queryKeys } from '../../lib/query/keys.ts';

/**
 * The signed-in user's account (`GET /accounts/my`), created with `PUT /accounts/my` on a 404.
 * Refreshes every 20 s; a refresh that finds the server unreachable is ignored (rules §4).
 */
export const myAccountQuery = (api: ApiClient, queryClient: QueryClient) =>
  queryOptions({
    queryKey: queryKeys.account.my(),
    queryFn: async ({ signal }): Promise<TAccount> => {
      const ignoreOffline = queryClient.getQueryData(queryKeys.account.my()) !== undefined;
      try {
        return await callEndpoint(api, ENDPOINTS.getMyAccount, {
          ignoreStatuses: [404],
          ignoreOffline,
          signal,
        });
      } catch (e) {
        if (!isApiError(e) || e.status !== 404) throw e;
      }
      // First visit: create the account. 409 means another tab created it meanwhile.
      await callEndpoint(api, ENDPOINTS.createMyAccount, {
        ignoreStatuses: [409],
        ignoreOffline,
        signal,
      }).catch((e: unknown) => {
        if (!isApiError(e) || e.status !== 409) throw e;
      });
      return callEndpoint(api, ENDPOINTS.getMyAccount, { ignoreOffline, signal });
    },
    refetchInterval: DATA_REFRESH_MS,
    refetchIntervalInBackground: true,
  });
