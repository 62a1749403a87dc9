import {
  Box,
  Button,
  Chip,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { type Cents, formatUsd } from '@pm/money';
import { useState } from 'react';
import { useIsMobile } from '../../../app/context.tsx';
import { EmptyState } from '../../../components/ui/EmptyState.tsx';
import { Page } from '../../../components/ui/Page.tsx';
import { usePackages } from '../api.ts';
import { NewPortDialog } from '../components/NewPortDialog.tsx';
import { PortSettings } from '../components/PortSettings.tsx';
import { geoText, portRanges, portsSummary, statusText, trafficText } from '../rules.ts';

/** Ports page (rules §2): the table of the user's packages, the settings sidebar of the selected one, New Port. */
export function PortsPage() {
  const isMobile = useIsMobile();
  const { data, isLoading } = usePackages();
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const packages = data?.packages ?? [];
  const selected = packages.find((p) => p.id === selectedId) ?? packages[0];

  return (
    <Page
      title="Ports"
      actions={
        <Button variant="contained" onClick={() => setCreating(true)} data-testid="new-port">
          New Port
        </Button>
      }
    >
      {!isLoading && packages.length === 0 && (
        <EmptyState testId="ports-empty">No ports yet: buy a package with New Port.</EmptyState>
      )}
      {packages.length > 0 && (
        <Stack direction={isMobile ? 'column' : 'row'} spacing={2} sx={{ alignItems: 'flex-start' }}>
          <TableContainer component={Paper} sx={{ flex: 2, minWidth: 0 }}>
            <Table size="small" aria-label="Ports">
              <TableHead>
                <TableRow>
                  <TableCell>{isMobile ? 'Location and ports' : 'Location'}</TableCell>
                  {!isMobile && <TableCell>Ports</TableCell>}
                  <TableCell>Traffic</TableCell>
                  {!isMobile && <TableCell>Price</TableCell>}
                  <TableCell>Status</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {packages.map((p) => (
                  <TableRow
                    key={p.id}
                    hover
                    selected={p.id === selected?.id}
                    onClick={() => setSelectedId(p.id)}
                    sx={{ cursor: 'pointer' }}
                    data-testid="port-row"
                  >
                    <TableCell>
                      {geoText(p)}
                      {isMobile && (
                        <Typography
                          variant="caption"
                          color="text.secondary"
                          component="div"
                          data-testid="port-row-ports"
                          sx={{ fontFamily: 'monospace', overflowWrap: 'anywhere' }}
                        >
                          {portsSummary(p.access.ports)}
                        </Typography>
                      )}
                    </TableCell>
                    {!isMobile && <TableCell>{portRanges(p.access.ports)}</TableCell>}
                    <TableCell>{trafficText(p)}</TableCell>
                    {!isMobile && <TableCell>{formatUsd(p.price as Cents)}</TableCell>}
                    <TableCell>
                      <Chip
                        size="small"
                        label={statusText(p)}
                        color={p.status.type === 'active' ? 'success' : 'default'}
                        data-testid="port-row-status"
                      />
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
          <Box sx={{ flex: 1, minWidth: 0, width: isMobile ? '100%' : undefined }}>
            {selected && <PortSettings key={selected.id} pkg={selected} />}
          </Box>
        </Stack>
      )}
      {isLoading && <Typography color="text.secondary">Loading…</Typography>}
      {creating && <NewPortDialog open={creating} onClose={() => setCreating(false)} />}
    </Page>
  );
}
