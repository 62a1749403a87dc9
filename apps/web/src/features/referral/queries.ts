import { ENDPOINTS, type TReferralInfo } from '@pm/contracts';
import { type QueryClient, queryOptions } from '@tanstack/react-query';
import { DATA_REFRESH_MS } from '../../app/queryClient.ts';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import type { ApiClient } from '../../lib/api/transport.ts';
import { queryKeys } from '../../lib/query/keys.ts';

/**
 * The caller's invite link, how many signed up with it and the rewards earned (`GET /referral`).
 * Rewards come from other customers' payments, so it refreshes every 20 s like the other data,
 * ignoring an unreachable server on a refresh.
 */
export const referralQuery = (api: ApiClient, queryClient: QueryClient) =>
  queryOptions({
    queryKey: queryKeys.referral.all,
    queryFn: ({ signal }): Promise<TReferralInfo> =>
      callEndpoint(api, ENDPOINTS.getReferralInfo, {
        ignoreOffline: queryClient.getQueryData(queryKeys.referral.all) !== undefined,
        signal,
      }),
    refetchInterval: DATA_REFRESH_MS,
  });
