import { ENDPOINTS, type TAgentListResponse, type TCountryTotals } from '@pm/contracts';
import { infiniteQueryOptions, keepPreviousData, queryOptions } from '@tanstack/react-query';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import { type ApiClient, isApiError } from '../../lib/api/transport.ts';
import { queryKeys } from '../../lib/query/keys.ts';
import {
  isRadiusActive,
  rejectedField,
  type ShopFilter,
  type ShopPaging,
  toAgentListQuery,
  UNKNOWN_POSTAL_TEXT,
} from './filters.ts';

// A 400 names the filter field it refused (from the address): the shop drops it and goes on
// (useDropRejectedFilter), so it is not the global error screen.
const listAgents = (api: ApiClient, query: Record<string, string | number | boolean>, signal?: AbortSignal) =>
  callEndpoint(api, ENDPOINTS.listAgents, { query, signal, ignoreStatuses: [400] });

/**
 * Checks a radius search's postal code before it is applied (Advanced Search, the Filter page):
 * the field error to show, or null when the server knows the code (or no radius search is set).
 */
export async function postalCodeProblem(api: ApiClient, filter: ShopFilter): Promise<string | null> {
  if (!isRadiusActive(filter)) return null;
  const { cc, geozip, georad } = filter;
  try {
    await listAgents(api, { cc, geozip: geozip.trim().toUpperCase(), georad, limit: 1 });
    return null;
  } catch (e) {
    if (isApiError(e) && e.status === 400 && rejectedField(e.body) === 'geozip') return UNKNOWN_POSTAL_TEXT;
    throw e;
  }
}

/**
 * One page of the desktop table (`GET /agents`), with the filter row's option lists (`segments=true`).
 * The previous page stays on screen while the next one loads.
 */
export const agentPageQuery = (api: ApiClient, filter: ShopFilter, paging: ShopPaging) =>
  queryOptions({
    queryKey: queryKeys.agents.page(filter, paging),
    queryFn: ({ signal }): Promise<TAgentListResponse> =>
      listAgents(api, toAgentListQuery(filter, paging, true), signal),
    placeholderData: keepPreviousData,
  });

/** The mobile list: pages appended by Show more; the answer's `cursor` is the next offset, 0 at the end. */
export const agentMoreQuery = (api: ApiClient, filter: ShopFilter, rowsPerPage: number) =>
  infiniteQueryOptions({
    queryKey: queryKeys.agents.more(filter, rowsPerPage),
    queryFn: ({ signal, pageParam }): Promise<TAgentListResponse> =>
      listAgents(api, { ...toAgentListQuery(filter, { page: 0, rowsPerPage }), cursor: pageParam }, signal),
    initialPageParam: 0,
    getNextPageParam: (last) => (last.cursor > 0 ? last.cursor : undefined),
  });

/** The option lists (regions, cities, ZIPs, ISPs) of a country and filter, for the mobile Filter page. */
export const agentSegmentsQuery = (api: ApiClient, filter: ShopFilter) =>
  queryOptions({
    queryKey: queryKeys.agents.segments(filter),
    queryFn: ({ signal }) =>
      listAgents(api, toAgentListQuery(filter, { page: 0, rowsPerPage: 1 }, true), signal),
    select: (r) => r.segments ?? { isps: [], zips: [], cities: [], regions: [] },
    staleTime: 60_000,
  });

/** Proxies on offer per country (`GET /totals/agents?all=true`): the chips' counts and the More menu. */
export const countryTotalsQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: queryKeys.agents.totals(),
    queryFn: ({ signal }): Promise<TCountryTotals> =>
      callEndpoint(api, ENDPOINTS.getCountryTotals, { query: { all: 'true' }, signal }),
    select: (r) => r.countries,
    staleTime: 60_000,
  });
