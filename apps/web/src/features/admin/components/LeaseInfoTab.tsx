import { Box, Button, Chip, Stack, TableCell, TableRow, TextField, Typography } from '@mui/material';
import type { TAdminLease } from '@pm/contracts';
import { useState } from 'react';
import { CompactTable } from '../../../components/ui/CompactTable.tsx';
import { DetailList } from '../../../components/ui/DetailList.tsx';
import { formatDateTime } from '../../../lib/format/time.ts';
import { useAdmin, useLoadedUser } from '../adminContext.tsx';
import { useCreditLease, useRefundLease } from '../mutations.ts';
import { adminLeaseQuery, adminLeasesQuery, type LeaseFilter, useAskedQuery } from '../queries.ts';
import { extractLeaseId, formatMb, formatUsd, isHeavyTraffic } from '../rules.ts';
import { ActionError, FieldRow, Section, TableScroll } from './AdminParts.tsx';
import { useConfirmChange } from './ConfirmChange.tsx';
import { PortsSection } from './PortsSection.tsx';

const fmt = (iso: string | null) => (iso ? formatDateTime(iso) : '');

/**
 * Lease Info: id search from pasted text, details, a running lease's refund (rules §6, on the
 * customer's request, under the customer's rule) and the credit of the purchase price once ended;
 * both need a reason and confirm with the amount. Leases by customer or IP.
 */
export function LeaseInfoTab() {
  const { client } = useAdmin();
  const { user } = useLoadedUser();
  const [text, setText] = useState('');
  const [reason, setReason] = useState('');
  const [ip, setIp] = useState('');
  const id = extractLeaseId(text);
  const lookup = useAskedQuery((leaseId: string) => adminLeaseQuery(client, leaseId));
  // Both refresh the lease, the loaded customer's balance and the payments (mutations.ts).
  const credit = useCreditLease(client);
  const refund = useRefundLease(client);
  const { confirm, dialog } = useConfirmChange();
  const why = reason.trim();
  const ask = (lease: TAdminLease, verb: 'Refund' | 'Credit') =>
    confirm({
      title: verb === 'Refund' ? 'Refund this lease?' : 'Credit this lease’s price?',
      text: `${verb} ${formatUsd(lease.purchasePriceC)} to ${lease.userId} for lease ${lease.id}${
        verb === 'Refund' ? ', ending it now' : ''
      }. Reason: ${why}`,
      confirmLabel: `${verb} ${formatUsd(lease.purchasePriceC)}`,
      run: () => (verb === 'Refund' ? refund : credit).start({ lease, reason }),
    });
  const busy = credit.busy || refund.busy;
  const list = useAskedQuery((filter: LeaseFilter) => adminLeasesQuery(client, filter));
  const lease = lookup.data ?? null;

  return (
    <>
      <Section title="Find a lease">
        <FieldRow>
          <TextField
            size="small"
            label="Lease id or any text containing it"
            value={text}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => e.key === 'Enter' && id && lookup.ask(id)}
            helperText={
              text.trim() ? (id ? `Lease id: ${id}` : 'No lease id (4 characters, a dash, 4 digits)') : ' '
            }
            slotProps={{ htmlInput: { 'data-testid': 'admin-lease-search' } }}
            sx={{ flex: 1 }}
          />
          <Button variant="contained" disabled={!id || lookup.busy} onClick={() => id && lookup.ask(id)}>
            Look up
          </Button>
        </FieldRow>
        <ActionError error={lookup.error} />
        {lookup.data === null && (
          <Typography sx={{ mt: 1 }} data-testid="admin-lease-missing">
            No lease {lookup.input}
          </Typography>
        )}
        {lease && (
          <Box sx={{ mt: 2 }} data-testid="admin-lease-details">
            <DetailList
              items={[
                { label: 'Lease', value: lease.id },
                { label: 'User', value: lease.user },
                { label: 'IP', value: lease.ip },
                {
                  label: 'Type',
                  value: `${lease.static ? 'static, ' : ''}${lease.exc ? 'private' : 'shared'}`,
                },
                { label: 'Purchase price', value: formatUsd(lease.purchasePriceC) },
                { label: 'Start', value: fmt(lease.start) },
                { label: 'Until', value: fmt(lease.until) },
                {
                  label: 'Ended',
                  value: lease.ended
                    ? `yes, ${fmt(lease.endedAt)} (${lease.endReason ?? 'ended'})`
                    : 'no, running',
                },
                {
                  label: 'Refund / credit',
                  value:
                    lease.refundAmountC !== null
                      ? `${formatUsd(lease.refundAmountC)} at ${fmt(lease.refundTime)}`
                      : 'none',
                },
                { label: 'Leases on agent', value: String(lease.leases) },
                { label: 'Auto-renew', value: lease.autoRenew ? 'on' : 'off' },
                { label: 'Traffic', value: formatMb(lease.trafficBytes) },
              ]}
            />
            <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5} sx={{ mt: 2 }}>
              <TextField
                size="small"
                label="Reason for the refund or credit"
                value={reason}
                onChange={(e) => setReason(e.target.value)}
                slotProps={{ htmlInput: { maxLength: 500, 'data-testid': 'admin-credit-reason' } }}
                sx={{ flex: 1 }}
              />
              <Button
                variant="outlined"
                color="warning"
                disabled={lease.ended || !why || busy}
                onClick={() => ask(lease, 'Refund')}
                data-testid="admin-refund-lease"
              >
                Refund {formatUsd(lease.purchasePriceC)}
              </Button>
              <Button
                variant="contained"
                disabled={!lease.creditable || !why || busy}
                onClick={() => ask(lease, 'Credit')}
                data-testid="admin-credit-lease"
              >
                Credit {formatUsd(lease.purchasePriceC)}
              </Button>
            </Stack>
            {!lease.ended && (
              <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
                Refund ends the running lease under the customer's rule; the purchase price can be credited
                once the lease has ended.
              </Typography>
            )}
            {dialog}
            <ActionError error={refund.error ?? credit.error} />
            {refund.result && !refund.busy && (
              <Typography sx={{ mt: 1 }} color="success.main" data-testid="admin-refund-done">
                Refunded {formatUsd(refund.result.refundAmountC)}; balance now{' '}
                {formatUsd(refund.result.balanceC)}
              </Typography>
            )}
            {credit.result && !credit.busy && (
              <Typography sx={{ mt: 1 }} color="success.main" data-testid="admin-credit-done">
                Credited {formatUsd(credit.result.creditC)}; balance now {formatUsd(credit.result.balanceC)}
              </Typography>
            )}
          </Box>
        )}
      </Section>

      <Section title="Leases by customer or IP">
        <FieldRow>
          <Button
            variant="outlined"
            disabled={!user || list.busy}
            onClick={() => user && list.ask({ uid: user.userId })}
            data-testid="admin-leases-of-user"
          >
            Leases of the loaded user
          </Button>
          <TextField size="small" label="IPv4 address" value={ip} onChange={(e) => setIp(e.target.value)} />
          <Button
            variant="outlined"
            disabled={!ip.trim() || list.busy}
            onClick={() => list.ask({ ip: ip.trim() })}
          >
            Leases on this IP
          </Button>
        </FieldRow>
        <ActionError error={list.error} />
        {list.data && (
          <TableScroll>
            <CompactTable
              label="Leases"
              columns={['Lease', 'User', 'IP', 'Start', 'Until', 'Price', 'Traffic', 'State']}
            >
              {list.data.leases.map((l) => (
                <TableRow
                  key={l.id}
                  hover
                  sx={{ cursor: 'pointer' }}
                  onClick={() => {
                    setText(l.id);
                    lookup.ask(l.id);
                  }}
                >
                  <TableCell>{l.id}</TableCell>
                  <TableCell sx={{ maxWidth: 160, overflowWrap: 'anywhere' }}>{l.userId}</TableCell>
                  <TableCell>{l.ip}</TableCell>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{fmt(l.start)}</TableCell>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{fmt(l.until)}</TableCell>
                  <TableCell>{formatUsd(l.purchasePriceC)}</TableCell>
                  <TableCell
                    sx={isHeavyTraffic(l.trafficBytes) ? { fontWeight: 700, color: 'error.main' } : undefined}
                  >
                    {formatMb(l.trafficBytes)}
                  </TableCell>
                  <TableCell>
                    <Chip size="small" label={l.ended ? 'ended' : 'running'} />
                  </TableCell>
                </TableRow>
              ))}
            </CompactTable>
            {list.data.leases.length === 0 && <Typography sx={{ mt: 1 }}>No leases found</Typography>}
          </TableScroll>
        )}
      </Section>

      <PortsSection />
    </>
  );
}
