import { TableCell, TableContainer, TableRow } from '@mui/material';
import type { TLeaseHistoryItem } from '@pm/contracts';
import { formatUsd } from '@pm/money';
import { CompactTable } from '../../../components/ui/CompactTable.tsx';
import { countryName } from '../../../lib/countries.ts';
import { formatDateTime } from '../../../lib/format/time.ts';
import { endReasonLabel } from '../rules.ts';
import type { BuyAgain } from '../useBuyAgain.ts';
import { BuyAgainButton } from './BuyAgainDialogs.tsx';

const COLUMNS = [
  'IP Address',
  'Location',
  'Started',
  'Paid until',
  'Note',
  'Last payment',
  'Status',
  '',
] as const;

const ellipsis = {
  maxWidth: 140,
  overflow: 'hidden',
  textOverflow: 'ellipsis',
  whiteSpace: 'nowrap',
} as const;

/** The desktop lease history table with a Buy Again button a row. */
export function HistoryTable({ items, buyAgain }: { items: TLeaseHistoryItem[]; buyAgain: BuyAgain }) {
  return (
    <TableContainer>
      <CompactTable label="Lease history" columns={COLUMNS}>
        {items.map((item) => (
          <TableRow key={item.leaseID} data-testid="history-row">
            <TableCell sx={{ fontFamily: 'monospace', whiteSpace: 'nowrap' }}>{item.ip}</TableCell>
            <TableCell sx={ellipsis}>
              {[item.loc.city, countryName(item.loc.cc)].filter(Boolean).join(', ')}
            </TableCell>
            <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(item.start)}</TableCell>
            <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(item.paidUntil)}</TableCell>
            <TableCell sx={ellipsis} title={item.note}>
              {item.note}
            </TableCell>
            <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatUsd(item.lastPaymentC)}</TableCell>
            <TableCell sx={{ whiteSpace: 'nowrap' }}>{endReasonLabel(item.endReason)}</TableCell>
            <TableCell align="right">
              <BuyAgainButton buyAgain={buyAgain} item={item} />
            </TableCell>
          </TableRow>
        ))}
      </CompactTable>
    </TableContainer>
  );
}
