import { Button, MenuItem, Stack, TableCell, TableRow, TextField, Typography } from '@mui/material';
import { AUDIT_ACTIONS, type AuditAction } from '@pm/contracts';
import { useState } from 'react';
import { CompactTable } from '../../../components/ui/CompactTable.tsx';
import { formatDateTime } from '../../../lib/format/time.ts';
import { ActionError, Section, TableScroll, useAction, useAdmin } from '../adminContext.tsx';
import { nextDay } from '../rules.ts';
import { PastDayField } from './UserPaymentsTab.tsx';

const json = (v: unknown) => (v === null || v === undefined ? '' : JSON.stringify(v));

/** Audit: who did what to whom, when, before and after; filter by staff, customer, action, date. */
export function AuditTab() {
  const { client, user } = useAdmin();
  const [actor, setActor] = useState('');
  const [target, setTarget] = useState('');
  const [action, setAction] = useState<AuditAction | ''>('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const load = useAction(async () =>
    client.audit({
      actor: actor.trim() || undefined,
      target: target.trim() || undefined,
      action: action || undefined,
      from: from || undefined,
      to: to ? nextDay(to) : undefined,
      limit: 200,
    }),
  );

  return (
    <Section title="Audit trail">
      <Stack
        direction={{ xs: 'column', md: 'row' }}
        spacing={1.5}
        useFlexGap
        sx={{ flexWrap: 'wrap', mb: 1.5 }}
      >
        <TextField
          size="small"
          label="Staff user id"
          value={actor}
          onChange={(e) => setActor(e.target.value)}
        />
        <TextField
          size="small"
          label="Customer or lease id"
          value={target}
          onChange={(e) => setTarget(e.target.value)}
          slotProps={{ htmlInput: { 'data-testid': 'admin-audit-target' } }}
        />
        {user && (
          <Button size="small" onClick={() => setTarget(user.userId)}>
            Loaded user
          </Button>
        )}
        <TextField
          size="small"
          select
          label="Action"
          value={action}
          onChange={(e) => setAction(AUDIT_ACTIONS.find((a) => a === e.target.value) ?? '')}
          sx={{ minWidth: 180 }}
        >
          <MenuItem value="">any</MenuItem>
          {AUDIT_ACTIONS.map((a) => (
            <MenuItem key={a} value={a}>
              {a}
            </MenuItem>
          ))}
        </TextField>
        <PastDayField label="From" value={from} onChange={setFrom} />
        <PastDayField label="To" value={to} onChange={setTo} />
        <Button
          variant="contained"
          disabled={load.busy}
          onClick={() => void load.start()}
          data-testid="admin-load-audit"
        >
          Show
        </Button>
      </Stack>
      <ActionError error={load.error} />
      {load.result && (
        <TableScroll>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
            {load.result.total} row(s), newest first
          </Typography>
          <CompactTable
            label="Audit trail"
            columns={['When', 'Staff', 'Action', 'Target', 'Before', 'After', 'Reason']}
          >
            {load.result.items.map((r) => (
              <TableRow key={r.id} data-testid="admin-audit-row" data-action={r.action}>
                <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(r.at)}</TableCell>
                <TableCell sx={{ maxWidth: 140, overflowWrap: 'anywhere' }}>{r.actorId}</TableCell>
                <TableCell>{r.action}</TableCell>
                <TableCell sx={{ maxWidth: 140, overflowWrap: 'anywhere' }}>{r.targetId}</TableCell>
                <TableCell sx={{ maxWidth: 200, overflowWrap: 'anywhere' }}>{json(r.before)}</TableCell>
                <TableCell sx={{ maxWidth: 200, overflowWrap: 'anywhere' }}>{json(r.after)}</TableCell>
                <TableCell sx={{ maxWidth: 200, overflowWrap: 'anywhere' }}>{r.reason}</TableCell>
              </TableRow>
            ))}
          </CompactTable>
        </TableScroll>
      )}
    </Section>
  );
}
