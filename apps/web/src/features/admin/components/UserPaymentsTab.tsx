import { Button, Stack, TableCell, TableRow, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import { CompactTable } from '../../../components/ui/CompactTable.tsx';
import { formatDateTime } from '../../../lib/format/time.ts';
import { txTypeLabel } from '../../payments/txTypes.ts';
import { useAdmin, useLoadedUser } from '../adminContext.tsx';
import { adminTxRecordsQuery, useAskedQuery } from '../queries.ts';
import { formatMb, formatUsd, isHeavyTraffic, leaseIdInMemo, nextDay, pickDay, todayDay } from '../rules.ts';
import { ActionError, NeedsUser, Section, TableScroll } from './AdminParts.tsx';

/** A date input that refuses future days (rules §5): `max` is today and a typed future day is dropped. */
export function PastDayField({
  label,
  value,
  onChange,
  testId,
}: {
  label: string;
  value: string;
  onChange: (day: string) => void;
  testId?: string;
}) {
  const today = todayDay();
  return (
    <TextField
      size="small"
      type="date"
      label={label}
      value={value}
      onChange={(e) => onChange(pickDay(value, e.target.value, today))}
      slotProps={{ inputLabel: { shrink: true }, htmlInput: { max: today, 'data-testid': testId } }}
    />
  );
}

/** User Payments: the user's ledger rows (offset 0, limit 1000, YYYY-MM-DD), traffic over 100 MB highlighted. */
export function UserPaymentsTab() {
  const { client } = useAdmin();
  const { user } = useLoadedUser();
  const today = todayDay();
  const [first, setFirst] = useState(() => {
    const d = new Date();
    d.setUTCDate(d.getUTCDate() - 30);
    return todayDay(d);
  });
  const [last, setLast] = useState(today);
  const load = useAskedQuery(({ uid, from, to }: { uid: string; from: string; to: string }) =>
    adminTxRecordsQuery(client, uid, from, nextDay(to)),
  );

  return (
    <Section title="User payments">
      {!user && <NeedsUser />}
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5} sx={{ mb: 1.5 }}>
        <PastDayField
          label="First date"
          value={first}
          testId="admin-pay-first"
          onChange={(d) => {
            setFirst(d);
            if (d > last) setLast(d);
          }}
        />
        <PastDayField
          label="Last date"
          value={last}
          testId="admin-pay-last"
          onChange={(d) => {
            setLast(d);
            if (d < first) setFirst(d);
          }}
        />
        <Button
          variant="contained"
          disabled={!user || load.busy}
          onClick={() => user && load.ask({ uid: user.userId, from: first, to: last })}
          data-testid="admin-load-payments"
        >
          Load payments
        </Button>
      </Stack>
      <ActionError error={load.error} />
      {load.data && (
        <TableScroll>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
            {load.data.payments.total} record(s); traffic over 100 MB is highlighted.
          </Typography>
          <CompactTable
            label="User payments"
            columns={['Time', 'Type', 'Memo', 'Amount', 'Balance', 'Lease traffic']}
          >
            {load.data.payments.txRecords.map((r) => {
              const leaseId = leaseIdInMemo(r.memo);
              const bytes = leaseId ? load.data?.traffic.get(leaseId) : undefined;
              const heavy = isHeavyTraffic(bytes);
              return (
                <TableRow
                  key={r.id}
                  data-testid="admin-payment-row"
                  data-heavy={heavy ? 'true' : 'false'}
                  sx={heavy ? { bgcolor: 'warning.light' } : undefined}
                >
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(r.time)}</TableCell>
                  <TableCell>{txTypeLabel(r.type)}</TableCell>
                  <TableCell sx={{ minWidth: 180, overflowWrap: 'anywhere' }}>{r.memo}</TableCell>
                  <TableCell>{formatUsd(r.amtC)}</TableCell>
                  <TableCell>{formatUsd(r.balC)}</TableCell>
                  <TableCell sx={heavy ? { fontWeight: 700, color: 'error.dark' } : undefined}>
                    {bytes === undefined ? '' : formatMb(bytes)}
                  </TableCell>
                </TableRow>
              );
            })}
          </CompactTable>
          {load.data.payments.txRecords.length === 0 && (
            <Typography sx={{ mt: 1 }}>No transactions found</Typography>
          )}
        </TableScroll>
      )}
    </Section>
  );
}
