import { type TStaticListResponse, ZStaticListResponse } from '@pm/contracts';
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { ApiClient } from '../../lib/api/transport.ts';
import { type StaticFilter, type StaticPaging, toStaticListQuery } from './rules.ts';

/** Query keys of the static shop; a static lease (or its refusal) invalidates `staticKeys.all`. */
export const staticKeys = {
  all: ['static'] as const,
  page: (filter: StaticFilter, paging: StaticPaging) => [...staticKeys.all, 'page', filter, paging] as const,
};

/** One page of `GET /static/list/`; the previous page stays on screen while the next one loads. */
export const staticPageQuery = (api: ApiClient, filter: StaticFilter, paging: StaticPaging) =>
  queryOptions({
    queryKey: staticKeys.page(filter, paging),
    queryFn: ({ signal }): Promise<TStaticListResponse> =>
      api.get('/static/list/', {
        query: toStaticListQuery(filter, paging),
        schema: ZStaticListResponse,
        signal,
      }),
    placeholderData: keepPreviousData,
  });
