import { Paper, Skeleton, Stack } from '@mui/material';
import { STATIC_PAGE_SIZES } from '@pm/contracts';
import { useQuery } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { useApi, useIsMobile } from '../../../app/context.tsx';
import { EmptyState } from '../../../components/ui/EmptyState.tsx';
import { Page } from '../../../components/ui/Page.tsx';
import { TablePager } from '../../../components/ui/TablePager.tsx';
import { StaticCountryChips, StaticFilterFields } from '../components/StaticFilters.tsx';
import { StaticCards, StaticTable } from '../components/StaticList.tsx';
import { StaticPurchaseDialogs } from '../components/StaticPurchaseDialogs.tsx';
import { staticPageQuery } from '../queries.ts';
import {
  DEFAULT_STATIC_FILTER,
  DEFAULT_STATIC_PAGING,
  NOTHING_FOUND_TEXT,
  type StaticFilter,
  type StaticPaging,
  withFilter,
} from '../rules.ts';
import { useStaticPurchase } from '../useStaticPurchase.ts';

/**
 * `/static` (rules §2 "A static-proxy shop"): static proxies by quick country, filtered by ip, city,
 * isp and conn, 10, 20 or 50 rows a page (default 10), each leased private for 24 hours.
 */
export function StaticShopPage() {
  const api = useApi();
  const isMobile = useIsMobile();
  const [filter, setFilter] = useState<StaticFilter>(DEFAULT_STATIC_FILTER);
  const [paging, setPaging] = useState<StaticPaging>(DEFAULT_STATIC_PAGING);
  const purchase = useStaticPurchase();
  const { data } = useQuery(staticPageQuery(api, filter, paging));
  const changeFilter = useCallback((patch: Partial<StaticFilter>) => {
    setFilter((f) => ({ ...f, ...patch }));
    setPaging(withFilter);
  }, []);
  const List = isMobile ? StaticCards : StaticTable;
  return (
    <Page title="Static Proxies">
      <Stack spacing={2}>
        <StaticCountryChips cc={filter.cc} onChange={(cc) => changeFilter({ cc })} />
        <StaticFilterFields filter={filter} onChange={changeFilter} isMobile={isMobile} />
        {!data && <Skeleton variant="rounded" height={240} />}
        {data && data.total === 0 && (
          <Paper variant="outlined">
            <EmptyState testId="static-empty">{NOTHING_FOUND_TEXT}</EmptyState>
          </Paper>
        )}
        {data && data.total > 0 && (
          <Paper
            variant={isMobile ? 'elevation' : 'outlined'}
            elevation={0}
            sx={isMobile ? { bgcolor: 'transparent' } : undefined}
          >
            <List agents={data.list} onBuy={purchase.open} />
            <TablePager
              count={data.total}
              page={paging.page}
              rowsPerPage={paging.rowsPerPage}
              rowsPerPageOptions={STATIC_PAGE_SIZES}
              onPageChange={(page) => setPaging((p) => ({ ...p, page }))}
              onRowsPerPageChange={(rowsPerPage) => setPaging({ page: 0, rowsPerPage })}
            />
          </Paper>
        )}
      </Stack>
      <StaticPurchaseDialogs purchase={purchase} />
    </Page>
  );
}
