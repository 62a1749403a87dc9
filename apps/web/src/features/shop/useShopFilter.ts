import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { filterFromParams, pagingFromParams, type ShopFilter, type ShopPaging, toParams } from './filters.ts';

/**
 * The shop's filter and page, kept in the address (`/shop?cc=GB&city=London&page=2`) so the Filter
 * page, the back button and a reload all see the same list. A filter change goes back to page 0.
 */
export function useShopFilter() {
  const [params, setParams] = useSearchParams();
  const key = params.toString();
  // biome-ignore lint/correctness/useExhaustiveDependencies: the query string is the identity of the filter
  const filter = useMemo(() => filterFromParams(params), [key]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: as above
  const paging = useMemo(() => pagingFromParams(params), [key]);

  const setFilter = useCallback(
    (next: ShopFilter) =>
      setParams(toParams(next, { page: 0, rowsPerPage: paging.rowsPerPage }), { replace: true }),
    [setParams, paging.rowsPerPage],
  );
  const setPaging = useCallback(
    (next: ShopPaging) => setParams(toParams(filter, next), { replace: true }),
    [setParams, filter],
  );
  return { filter, paging, setFilter, setPaging };
}
