import TuneIcon from '@mui/icons-material/Tune';
import { Alert, Button, CircularProgress, Stack, Typography } from '@mui/material';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Link as RouterLink, useLocation } from 'react-router';
import { useApi } from '../../../app/context.tsx';
import { EmptyState } from '../../../components/ui/EmptyState.tsx';
import { countryName } from '../../../lib/countries.ts';
import { proxyCount } from '../../../lib/format/agent.ts';
import { isEmptyFilter, withCountry } from '../filters.ts';
import { agentMoreQuery } from '../queries.ts';
import { useDropRejectedFilter } from '../useDropRejectedFilter.ts';
import { useShopFilter } from '../useShopFilter.ts';
import { CountryChips } from './CountryChips.tsx';
import { ProxyCard } from './ProxyCard.tsx';
import { NOTHING_FOUND_TEXT } from './ShopTable.tsx';

/** The mobile shop (rules §2): country chips, a Filter link to /filter, cards and Show more. */
export function MobileShop() {
  const api = useApi();
  const { search } = useLocation();
  const { filter, paging, setFilter } = useShopFilter();
  const list = useInfiniteQuery(agentMoreQuery(api, filter, paging.rowsPerPage));
  useDropRejectedFilter(list.error, filter, setFilter);
  const agents = list.data?.pages.flatMap((p) => p.agents);
  const total = list.data?.pages[0]?.total;
  return (
    <Stack spacing={1.5}>
      <Typography variant="h5" component="h1" sx={{ fontSize: 20 }}>
        Shop
      </Typography>
      <CountryChips cc={filter.cc} onChange={(cc) => setFilter(withCountry(filter, cc))} />
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between' }}>
        <Typography variant="body2" color="text.secondary" data-testid="shop-total">
          {total === undefined ? ' ' : `${proxyCount(total)} in ${countryName(filter.cc)}`}
        </Typography>
        <Button
          component={RouterLink}
          to={`/filter${search}`}
          startIcon={<TuneIcon />}
          variant={isEmptyFilter(filter) ? 'outlined' : 'contained'}
          size="small"
        >
          Filter
        </Button>
      </Stack>
      {list.isPending && (
        <CircularProgress sx={{ alignSelf: 'center', my: 4 }} aria-label="Loading proxies" />
      )}
      {list.isError && <Alert severity="error">The proxy list could not be loaded.</Alert>}
      {agents?.length === 0 && <EmptyState testId="shop-empty">{NOTHING_FOUND_TEXT}</EmptyState>}
      {agents?.map((agent) => (
        <ProxyCard key={agent.id} agent={agent} />
      ))}
      {list.hasNextPage && (
        <Button
          variant="outlined"
          onClick={() => void list.fetchNextPage()}
          disabled={list.isFetchingNextPage}
        >
          {list.isFetchingNextPage ? 'Loading…' : 'Show more'}
        </Button>
      )}
    </Stack>
  );
}
