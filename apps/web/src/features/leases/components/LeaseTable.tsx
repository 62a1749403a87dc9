import { Paper, TableCell, TableContainer, TableRow } from '@mui/material';
import type { TLease } from '@pm/contracts';
import { CompactTable } from '../../../components/ui/CompactTable.tsx';
import { countryName } from '../../../lib/countries.ts';
import { formatTimeLeft } from '../../../lib/format/agent.ts';
import { useNow } from '../../../lib/useNow.ts';
import { leaseTypeLabel } from '../rules.ts';

const COLUMNS = ['IP Address', 'Country', 'City', 'ISP', 'Type', 'Time left', 'Auto-renew', 'Note'] as const;

const ellipsis = {
  maxWidth: 140,
  overflow: 'hidden',
  textOverflow: 'ellipsis',
  whiteSpace: 'nowrap',
} as const;

/** The desktop My Proxies table; a row opens the lease in the sidebar. */
export function LeaseTable({
  leases,
  selectedId,
  onSelect,
}: {
  leases: TLease[];
  selectedId: string | null;
  onSelect: (id: string) => void;
}) {
  const now = useNow();
  return (
    <TableContainer component={Paper} variant="outlined">
      <CompactTable label="My proxies" columns={COLUMNS}>
        {leases.map((lease) => {
          const { ip, loc } = lease.currentInfo;
          return (
            <TableRow
              key={lease.id}
              hover
              selected={lease.id === selectedId}
              aria-selected={lease.id === selectedId}
              onClick={() => onSelect(lease.id)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' || e.key === ' ') onSelect(lease.id);
              }}
              tabIndex={0}
              data-testid="lease-row"
              sx={{ cursor: 'pointer' }}
            >
              <TableCell sx={{ fontFamily: 'monospace', whiteSpace: 'nowrap' }}>{ip}</TableCell>
              <TableCell sx={ellipsis}>{countryName(loc.cc)}</TableCell>
              <TableCell sx={ellipsis}>{loc.city}</TableCell>
              <TableCell sx={ellipsis} title={loc.isp}>
                {loc.isp}
              </TableCell>
              <TableCell>{leaseTypeLabel(lease)}</TableCell>
              <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatTimeLeft(lease.until, now)}</TableCell>
              <TableCell>{lease.autoRenew ? 'On' : 'Off'}</TableCell>
              <TableCell sx={ellipsis} title={lease.note}>
                {lease.note}
              </TableCell>
            </TableRow>
          );
        })}
      </CompactTable>
    </TableContainer>
  );
}
