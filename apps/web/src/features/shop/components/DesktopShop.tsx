import FilterListIcon from '@mui/icons-material/FilterList';
import TravelExploreIcon from '@mui/icons-material/TravelExplore';
import { Alert, Box, Button, Chip, Skeleton, Stack, Typography } from '@mui/material';
import type { TAgent } from '@pm/contracts';
import { useQuery } from '@tanstack/react-query';
import { Suspense, useCallback, useState } from 'react';
import { useApi } from '../../../app/context.tsx';
import { Page } from '../../../components/ui/Page.tsx';
import { countryName } from '../../../lib/countries.ts';
import { proxyCount } from '../../../lib/format/agent.ts';
import { lazyNamed } from '../../../lib/lazyNamed.ts';
import { isEmptyFilter, isRadiusActive, isRadiusSearchCountry, withCountry } from '../filters.ts';
import { agentPageQuery } from '../queries.ts';
import { useDropRejectedFilter } from '../useDropRejectedFilter.ts';
import { usePurchaseFlow } from '../usePurchaseFlow.ts';
import { useShopFilter } from '../useShopFilter.ts';
import { CountryChips } from './CountryChips.tsx';
import { ProxySidebar } from './ProxySidebar.tsx';
import { ShopTable } from './ShopTable.tsx';

// What a first visit does not show loads when first needed: the filter row (hidden until Filters),
// the Advanced Search dialog and the purchase dialogs.
const FilterRow = lazyNamed(() => import('./FilterRow.tsx'), 'FilterRow');
const AdvancedSearchDialog = lazyNamed(() => import('./AdvancedSearchDialog.tsx'), 'AdvancedSearchDialog');
const PurchaseDialogs = lazyNamed(() => import('./PurchaseDialogs.tsx'), 'PurchaseDialogs');

/** The desktop shop (rules §2): country chips, filter row, Advanced Search, table, sidebar, purchase dialogs. */
export function DesktopShop() {
  const api = useApi();
  const { filter, paging, setFilter, setPaging } = useShopFilter();
  const { data, isError, error } = useQuery(agentPageQuery(api, filter, paging));
  useDropRejectedFilter(error, filter, setFilter);
  const [isFilterRowShown, setFilterRowShown] = useState(() => !isEmptyFilter(filter));
  const [isAdvancedOpen, setAdvancedOpen] = useState(false);
  const [selected, setSelected] = useState<TAgent | null>(null);
  // After a sale the list is cleared and reloaded (rules §4), and the proxy bought leaves the sidebar:
  // as it was selected it can no longer be bought.
  const clearSelected = useCallback(() => setSelected(null), []);
  const flow = usePurchaseFlow(clearSelected);
  const canRadius = isRadiusSearchCountry(filter.cc);

  const actions = (
    <Stack direction="row" spacing={1}>
      <Button
        startIcon={<FilterListIcon />}
        variant={isFilterRowShown ? 'contained' : 'outlined'}
        aria-pressed={isFilterRowShown}
        onClick={() => setFilterRowShown((shown) => !shown)}
      >
        Filters
      </Button>
      {canRadius && (
        <Button startIcon={<TravelExploreIcon />} variant="outlined" onClick={() => setAdvancedOpen(true)}>
          Advanced Search
        </Button>
      )}
    </Stack>
  );

  return (
    <Page title="Shop" actions={actions}>
      <Stack spacing={2}>
        <CountryChips
          cc={filter.cc}
          onChange={(cc) => {
            setSelected(null);
            setFilter(withCountry(filter, cc));
          }}
        />
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', minHeight: 32 }}>
          <Typography variant="body2" color="text.secondary" data-testid="shop-total">
            {data ? `${proxyCount(data.total)} in ${countryName(filter.cc)}` : ' '}
          </Typography>
          {isRadiusActive(filter) && (
            <Chip
              size="small"
              label={`Within ${filter.georad} mi of ${filter.geozip}`}
              onDelete={() => setFilter({ ...filter, geozip: '', georad: 0 })}
            />
          )}
        </Stack>
      </Stack>
      <Box sx={{ mt: 1 }}>
        {isFilterRowShown && (
          <Suspense fallback={<Skeleton variant="rounded" height={72} sx={{ mb: 2 }} />}>
            <FilterRow filter={filter} segments={data?.segments} onChange={setFilter} />
          </Suspense>
        )}
        {isError && (
          <Alert severity="error" sx={{ mb: 2 }}>
            The proxy list could not be loaded.
          </Alert>
        )}
        <Box
          sx={{ display: 'grid', gridTemplateColumns: 'minmax(0, 1fr) 320px', gap: 2, alignItems: 'start' }}
        >
          <ShopTable
            agents={data?.agents}
            total={data?.total ?? 0}
            paging={paging}
            selectedId={selected?.id ?? null}
            onSelect={setSelected}
            onPagingChange={setPaging}
          />
          <ProxySidebar agent={selected} onBuy={flow.open} />
        </Box>
      </Box>
      <Suspense fallback={null}>
        {isAdvancedOpen && (
          <AdvancedSearchDialog
            open
            filter={filter}
            onApply={(next) => {
              setSelected(null);
              setFilter(next);
            }}
            onClose={() => setAdvancedOpen(false)}
          />
        )}
        {flow.state.step !== 'OFF' && <PurchaseDialogs flow={flow} />}
      </Suspense>
    </Page>
  );
}
