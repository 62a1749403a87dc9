import HistoryIcon from '@mui/icons-material/History';
import SearchIcon from '@mui/icons-material/Search';
import {
  Alert,
  Box,
  Button,
  FormControlLabel,
  InputAdornment,
  Paper,
  Skeleton,
  Stack,
  Switch,
  Typography,
} from '@mui/material';
import type { TLease } from '@pm/contracts';
import { type ReactNode, useState } from 'react';
import { Link as RouterLink, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useIsMobile } from '../../../app/context.tsx';
import { EmptyState } from '../../../components/ui/EmptyState.tsx';
import { InputField } from '../../../components/ui/InputField.tsx';
import { Page } from '../../../components/ui/Page.tsx';
import { LeaseCard } from '../components/LeaseCard.tsx';
import { LeaseDetail } from '../components/LeaseDetail.tsx';
import { LeaseLifecycleButtons } from '../components/LeaseLifecycleButtons.tsx';
import { LeaseTable } from '../components/LeaseTable.tsx';
import { ALREADY_HELD_NOTICE, isHeldLeaseState } from '../heldLease.ts';
import { matchesLeaseFilter } from '../rules.ts';
import { useActiveLeases } from '../useActiveLeases.ts';

export const NO_LEASES_TEXT = 'No active proxies found';

/** `/my` (rules §2): the active leases with a filter box; a detail sidebar on desktop, cards on phones. */
export function MyProxiesPage() {
  const isMobile = useIsMobile();
  const { data: leases } = useActiveLeases();
  const [filterText, setFilterText] = useState('');
  // `?lease=` selects a lease (Buy Again of a proxy the customer holds opens it here, and says so).
  const [params] = useSearchParams();
  const requestedId = params.get('lease');
  const isAlreadyHeld = isHeldLeaseState(useLocation().state);
  const shown = leases?.filter((l) => matchesLeaseFilter(l, filterText));
  const filterBox = (
    <InputField
      size="small"
      placeholder="Filter"
      value={filterText}
      onChange={(e) => setFilterText(e.target.value)}
      htmlInput={{ 'aria-label': 'Filter proxies' }}
      startAdornment={
        <InputAdornment position="start">
          <SearchIcon fontSize="small" />
        </InputAdornment>
      }
      sx={{ width: isMobile ? '100%' : 260 }}
    />
  );
  return (
    <Page title="My Proxies" actions={isMobile ? undefined : <DesktopActions filterBox={filterBox} />}>
      {isMobile && <MobileHeader filterBox={filterBox} />}
      {isAlreadyHeld && (
        <Alert severity="info" data-testid="already-held" sx={{ mb: 2 }}>
          {ALREADY_HELD_NOTICE}
        </Alert>
      )}
      {!shown && <Skeleton variant="rounded" height={200} />}
      {shown?.length === 0 && (
        <Paper variant="outlined">
          <EmptyState testId="leases-empty">{NO_LEASES_TEXT}</EmptyState>
        </Paper>
      )}
      {shown &&
        shown.length > 0 &&
        (isMobile ? <LeaseCards leases={shown} /> : <DesktopLeases leases={shown} initialId={requestedId} />)}
    </Page>
  );
}

/** Desktop: the lease history link and the filter box. */
function DesktopActions({ filterBox }: { filterBox: ReactNode }) {
  return (
    <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center' }}>
      <Button component={RouterLink} to="/my/history" startIcon={<HistoryIcon />}>
        Lease History
      </Button>
      {filterBox}
    </Stack>
  );
}

/** Phones: the filter box and the Show history toggle, which opens the lease history. */
function MobileHeader({ filterBox }: { filterBox: ReactNode }) {
  const navigate = useNavigate();
  return (
    <Stack spacing={1} sx={{ mb: 1.5 }}>
      <FormControlLabel
        control={<Switch checked={false} onChange={() => void navigate('/my/history')} />}
        label="Show history"
      />
      {filterBox}
    </Stack>
  );
}

function LeaseCards({ leases }: { leases: TLease[] }) {
  return (
    <Stack spacing={1.5}>
      {leases.map((lease) => (
        <LeaseCard key={lease.id} lease={lease} />
      ))}
    </Stack>
  );
}

function DesktopLeases({ leases, initialId }: { leases: TLease[]; initialId: string | null }) {
  const [selectedId, setSelectedId] = useState<string | null>(initialId);
  const selected = leases.find((l) => l.id === selectedId) ?? leases[0]!;
  return (
    <Box sx={{ display: 'grid', gridTemplateColumns: 'minmax(0, 1fr) 380px', gap: 2, alignItems: 'start' }}>
      <LeaseTable leases={leases} selectedId={selected.id} onSelect={setSelectedId} />
      <Paper
        variant="outlined"
        component="aside"
        aria-label="Proxy Details"
        sx={{ p: 2, position: 'sticky', top: 80 }}
      >
        <Typography variant="h6" component="h2" sx={{ fontFamily: 'monospace', mb: 1 }}>
          {selected.currentInfo.ip}
        </Typography>
        <LeaseLifecycleButtons key={`lifecycle-${selected.id}`} lease={selected} />
        <LeaseDetail key={selected.id} lease={selected} />
      </Paper>
    </Box>
  );
}
