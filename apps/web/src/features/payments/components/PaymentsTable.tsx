import { Paper, Table, TableBody, TableCell, TableContainer, TableHead, TableRow } from '@mui/material';
import type { TTxRecord } from '@pm/contracts';
import { formatUsd } from '@pm/money';
import { TablePager } from '../../../components/ui/TablePager.tsx';
import { formatDateTime } from '../../../lib/format/time.ts';
import { PAYMENTS_PAGE_SIZE } from '../queries.ts';
import { txTypeLabel } from '../txTypes.ts';
import { Amount } from './Amount.tsx';

const COLUMNS = ['Time', 'Type', 'Memo', 'Amount', 'Balance'] as const;
const isMoney = (c: string) => c === 'Amount' || c === 'Balance';

/** The desktop transactions table, 10 rows a page (rules §2 "Payments"). */
export function PaymentsTable({
  records,
  total,
  page,
  onPageChange,
}: {
  records: TTxRecord[];
  total: number;
  page: number;
  onPageChange: (page: number) => void;
}) {
  return (
    <TableContainer component={Paper} variant="outlined">
      <Table size="small" aria-label="Payments">
        <TableHead>
          <TableRow>
            {COLUMNS.map((c) => (
              <TableCell key={c} align={isMoney(c) ? 'right' : 'left'} sx={{ fontWeight: 700 }}>
                {c}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {records.map((r) => (
            <TableRow key={r.id} data-testid="payment-row" data-type={r.type}>
              <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(r.time)}</TableCell>
              <TableCell sx={{ whiteSpace: 'nowrap' }}>{txTypeLabel(r.type)}</TableCell>
              <TableCell sx={{ overflowWrap: 'anywhere' }}>{r.memo}</TableCell>
              <TableCell align="right">
                <Amount cents={r.amtC} />
              </TableCell>
              <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                {formatUsd(r.balC)}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <TablePager
        count={total}
        page={page}
        rowsPerPage={PAYMENTS_PAGE_SIZE}
        rowsPerPageOptions={[PAYMENTS_PAGE_SIZE]}
        onPageChange={onPageChange}
        onRowsPerPageChange={() => {}}
      />
    </TableContainer>
  );
}
