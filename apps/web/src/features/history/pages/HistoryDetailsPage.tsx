import { Alert, Card, CardContent, Skeleton, Stack, Typography } from '@mui/material';
import { HISTORY_PAGE_SIZES } from '@pm/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router';
import { useApi } from '../../../app/context.tsx';
import { DetailList } from '../../../components/ui/DetailList.tsx';
import { Page } from '../../../components/ui/Page.tsx';
import { countryName } from '../../../lib/countries.ts';
import { dayOf, defaultRange } from '../../payments/dateRange.ts';
import { BuyAgainButton, BuyAgainDialogs } from '../components/BuyAgainDialogs.tsx';
import { leaseHistoryQuery } from '../queries.ts';
import { type HistoryView, historyBounds } from '../rules.ts';
import { useBuyAgain } from '../useBuyAgain.ts';

export const HISTORY_ITEM_GONE_TEXT = 'No lease with this IP address in the last 60 days.';

/**
 * `/my/history-details/{ip}` (mobile, rules §2): the newest lease of the last 60 days on that IP, with
 * Lease ID, IP Address, Country, City, State, Zip, Isp and Buy Again.
 */
export function HistoryDetailsPage() {
  const { ip = '' } = useParams();
  const api = useApi();
  const queryClient = useQueryClient();
  const buyAgain = useBuyAgain();
  const [view] = useState<HistoryView>(() => ({
    range: defaultRange(historyBounds(dayOf(new Date()))),
    search: ip,
    page: 0,
    rowsPerPage: HISTORY_PAGE_SIZES[HISTORY_PAGE_SIZES.length - 1]!,
  }));
  const { data, isError } = useQuery(leaseHistoryQuery(api, queryClient, view));
  const item = data?.items.find((i) => i.ip === ip);
  return (
    <Page title="History Details">
      {!data && !isError && <Skeleton variant="rounded" height={280} />}
      {(isError || (data && !item)) && <Alert severity="info">{HISTORY_ITEM_GONE_TEXT}</Alert>}
      {item && (
        <Card data-testid="history-details">
          <CardContent>
            <Stack spacing={2}>
              <Typography variant="h6" component="h2" sx={{ fontFamily: 'monospace' }}>
                {item.ip}
              </Typography>
              <DetailList
                items={[
                  { label: 'Lease ID', value: item.leaseID },
                  { label: 'IP Address', value: item.ip },
                  { label: 'Country', value: countryName(item.loc.cc) },
                  { label: 'City', value: item.loc.city },
                  { label: 'State', value: item.loc.reg },
                  { label: 'Zip', value: item.loc.zip },
                  { label: 'Isp', value: item.loc.isp },
                ]}
              />
              <BuyAgainButton buyAgain={buyAgain} item={item} size="medium" />
            </Stack>
          </CardContent>
        </Card>
      )}
      <BuyAgainDialogs buyAgain={buyAgain} />
    </Page>
  );
}
