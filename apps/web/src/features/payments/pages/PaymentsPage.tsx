import AddIcon from '@mui/icons-material/Add';
import { Button, Paper, Skeleton, Stack } from '@mui/material';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { useApi, useIsMobile } from '../../../app/context.tsx';
import { useDialogs } from '../../../app/dialogs.tsx';
import { EmptyState } from '../../../components/ui/EmptyState.tsx';
import { Page } from '../../../components/ui/Page.tsx';
import { DateRangeFields } from '../components/DateRangeFields.tsx';
import { PaymentCards } from '../components/PaymentCards.tsx';
import { PaymentsTable } from '../components/PaymentsTable.tsx';
import { type DateRange, dayBounds, dayOf, defaultRange } from '../dateRange.ts';
import { txRecordsMoreQuery, txRecordsPageQuery } from '../queries.ts';

export const NO_TRANSACTIONS_TEXT = 'No transactions found';

/**
 * `/payments` (rules §2): the caller's transactions between two dates of the last 90 days, with an
 * Add Funds link; a paged table on desktop, a list with Show more payments on phones. Referral
 * rewards and charge bonuses are rows like any other.
 */
export function PaymentsPage() {
  const isMobile = useIsMobile();
  const [bounds] = useState(() => dayBounds(dayOf(new Date())));
  const [range, setRange] = useState(() => defaultRange(bounds));
  const rangeKey = `${range.first}/${range.last}`;
  return (
    <Page title="Payments" actions={<AddFundsLink isMobile={isMobile} />}>
      <Stack spacing={2}>
        <DateRangeFields range={range} bounds={bounds} onChange={setRange} isMobile={isMobile} />
        {/* A new range starts again at the first page (rules §4 "Lists"). */}
        {isMobile ? (
          <MobilePayments key={rangeKey} range={range} />
        ) : (
          <DesktopPayments key={rangeKey} range={range} />
        )}
      </Stack>
    </Page>
  );
}

/** Desktop opens the add-funds dialog; phones go to the add-funds page. */
function AddFundsLink({ isMobile }: { isMobile: boolean }) {
  const { openAddFunds } = useDialogs();
  return isMobile ? (
    <Button component={RouterLink} to="/add-funds" startIcon={<AddIcon />} size="small">
      Add Funds
    </Button>
  ) : (
    <Button onClick={openAddFunds} startIcon={<AddIcon />} variant="outlined">
      Add Funds
    </Button>
  );
}

function NoTransactions() {
  return (
    <Paper variant="outlined">
      <EmptyState testId="payments-empty">{NO_TRANSACTIONS_TEXT}</EmptyState>
    </Paper>
  );
}

function DesktopPayments({ range }: { range: DateRange }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(0);
  const { data } = useQuery(txRecordsPageQuery(api, queryClient, range, page));
  if (!data) return <Skeleton variant="rounded" height={240} />;
  if (data.total === 0) return <NoTransactions />;
  return <PaymentsTable records={data.txRecords} total={data.total} page={page} onPageChange={setPage} />;
}

function MobilePayments({ range }: { range: DateRange }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const { data, hasNextPage, isFetchingNextPage, fetchNextPage } = useInfiniteQuery(
    txRecordsMoreQuery(api, queryClient, range),
  );
  if (!data) return <Skeleton variant="rounded" height={240} />;
  const records = data.pages.flatMap((p) => p.txRecords);
  if (records.length === 0) return <NoTransactions />;
  return (
    <PaymentCards
      records={records}
      hasMore={hasNextPage}
      isLoadingMore={isFetchingNextPage}
      onShowMore={() => void fetchNextPage()}
    />
  );
}
