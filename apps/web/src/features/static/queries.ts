import {
  ENDPOINTS,
  STATIC_PAGE_SIZES,
  type TLeaseHistoryItem,
  type TStaticAgent,
  type TStaticListResponse,
} from '@pm/contracts';
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import type { ApiClient } from '../../lib/api/transport.ts';
import { queryKeys } from '../../lib/query/keys.ts';
import { type StaticFilter, type StaticPaging, toStaticListQuery } from './rules.ts';

/** One page of `GET /static/list/`; the previous page stays on screen while the next one loads. */
export const staticPageQuery = (api: ApiClient, filter: StaticFilter, paging: StaticPaging) =>
  queryOptions({
    queryKey: queryKeys.static.page(filter, paging),
    queryFn: ({ signal }): Promise<TStaticListResponse> =>
      callEndpoint(api, ENDPOINTS.listStaticAgents, { query: toStaticListQuery(filter, paging), signal }),
    placeholderData: keepPreviousData,
  });

/**
 * A static agent if it is on sale now (Buy Again of a static lease): looked up in `GET /static/list/`
 * by its country and IP; null when it is not listed (leased, offline or withdrawn).
 */
export const staticOfferQuery = (api: ApiClient, item: Pick<TLeaseHistoryItem, 'agentID' | 'ip' | 'loc'>) =>
  queryOptions({
    queryKey: queryKeys.static.offer(item.agentID),
    queryFn: async ({ signal }): Promise<TStaticAgent | null> => {
      const page = await callEndpoint(api, ENDPOINTS.listStaticAgents, {
        query: { cc: item.loc.cc, ip: item.ip, cursor: 0, limit: STATIC_PAGE_SIZES[2] },
        signal,
      });
      return page.list.find((a) => a.id === item.agentID) ?? null;
    },
    staleTime: 0,
    retry: false,
  });
