import { FormControlLabel, Paper, Skeleton, Stack, Switch } from '@mui/material';
import { HISTORY_PAGE_SIZES } from '@pm/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useApi, useIsMobile } from '../../../app/context.tsx';
import { EmptyState } from '../../../components/ui/EmptyState.tsx';
import { Page } from '../../../components/ui/Page.tsx';
import { TablePager } from '../../../components/ui/TablePager.tsx';
import { type DateRange, dayOf, defaultRange } from '../../payments/dateRange.ts';
import { BuyAgainDialogs } from '../components/BuyAgainDialogs.tsx';
import { HistoryCards } from '../components/HistoryCards.tsx';
import { HistoryFilters } from '../components/HistoryFilters.tsx';
import { HistoryTable } from '../components/HistoryTable.tsx';
import { leaseHistoryQuery } from '../queries.ts';
import { type HistoryView, historyBounds, NO_HISTORY_TEXT } from '../rules.ts';
import { useBuyAgain } from '../useBuyAgain.ts';

/**
 * `/my/history` (rules §2): past leases searched by IP or note between two dates of the last 60 days,
 * 10 or 20 rows a page, Buy Again. On phones it is My Proxies with Show history on; a card opens the
 * history details.
 */
export function HistoryPage() {
  const isMobile = useIsMobile();
  const [bounds] = useState(() => historyBounds(dayOf(new Date())));
  const [view, setView] = useState<HistoryView>(() => ({
    range: defaultRange(bounds),
    search: '',
    page: 0,
    rowsPerPage: HISTORY_PAGE_SIZES[0],
  }));
  // A new search, range or page size starts again at the first page (rules §4 "Lists").
  const refilter = (patch: Partial<HistoryView>) => setView((v) => ({ ...v, ...patch, page: 0 }));
  return (
    <Page title={isMobile ? 'My Proxies' : 'Lease History'}>
      <Stack spacing={2}>
        {isMobile && <ShowHistorySwitch />}
        <HistoryFilters
          range={view.range}
          bounds={bounds}
          onRangeChange={(range: DateRange) => refilter({ range })}
          onSearch={(search) => refilter({ search })}
          isMobile={isMobile}
        />
        <HistoryResults view={view} onView={setView} isMobile={isMobile} />
      </Stack>
    </Page>
  );
}

/** Phones: the My Proxies toggle, on here; switching it off goes back to the active leases. */
function ShowHistorySwitch() {
  const navigate = useNavigate();
  return (
    <FormControlLabel
      control={<Switch checked onChange={() => void navigate('/my')} />}
      label="Show history"
    />
  );
}

function HistoryResults({
  view,
  onView,
  isMobile,
}: {
  view: HistoryView;
  onView: (view: HistoryView) => void;
  isMobile: boolean;
}) {
  const api = useApi();
  const queryClient = useQueryClient();
  const buyAgain = useBuyAgain();
  const { data, isError } = useQuery(leaseHistoryQuery(api, queryClient, view));
  if (!data && !isError) return <Skeleton variant="rounded" height={240} />;
  const items = data?.items ?? [];
  if (items.length === 0) {
    return (
      <Paper variant="outlined">
        <EmptyState testId="history-empty">{NO_HISTORY_TEXT}</EmptyState>
      </Paper>
    );
  }
  const pager = (
    <TablePager
      count={data?.total ?? 0}
      page={view.page}
      rowsPerPage={view.rowsPerPage}
      rowsPerPageOptions={HISTORY_PAGE_SIZES}
      onPageChange={(page) => onView({ ...view, page })}
      onRowsPerPageChange={(rowsPerPage) => onView({ ...view, rowsPerPage, page: 0 })}
    />
  );
  return (
    <>
      {isMobile ? (
        <Stack spacing={1}>
          <HistoryCards items={items} />
          <Paper variant="outlined">{pager}</Paper>
        </Stack>
      ) : (
        <Paper variant="outlined">
          <HistoryTable items={items} buyAgain={buyAgain} />
          {pager}
        </Paper>
      )}
      <BuyAgainDialogs buyAgain={buyAgain} />
    </>
  );
}
