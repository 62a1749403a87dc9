import { Button, MenuItem, Stack, TableCell, TableRow, TextField, Typography } from '@mui/material';
import { AUDIT_ACTIONS, type AuditAction } from '@pm/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { CompactTable } from '../../../components/ui/CompactTable.tsx';
import { formatDateTime } from '../../../lib/format/time.ts';
import { useAdmin, useLoadedUser } from '../adminContext.tsx';
import { describeAuditChange } from '../auditText.ts';
import { type AuditQuery, adminAuditQuery, useAskedQuery } from '../queries.ts';
import { nextDay } from '../rules.ts';
import { ActionError, Section, TableScroll } from './AdminParts.tsx';
import { PastDayField } from './UserPaymentsTab.tsx';

/**
 * Audit: who did what to whom (by e-mail where the id is a person's), when, and the change as
 * readable lines; filter by staff, customer, action, date.
 */
export function AuditTab() {
  const { client } = useAdmin();
  const { user } = useLoadedUser();
  const queryClient = useQueryClient();
  const [actor, setActor] = useState('');
  const [target, setTarget] = useState('');
  const [action, setAction] = useState<AuditAction | ''>('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const load = useAskedQuery((query: AuditQuery) => adminAuditQuery(queryClient, client, query));
  const show = () =>
    load.ask({
      actor: actor.trim() || undefined,
      target: target.trim() || undefined,
      action: action || undefined,
      from: from || undefined,
      to: to ? nextDay(to) : undefined,
      limit: 200,
    });
  const name = (id: string) => load.data?.emails.get(id) ?? id;

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
        <Button variant="contained" disabled={load.busy} onClick={show} data-testid="admin-load-audit">
          Show
        </Button>
      </Stack>
      <ActionError error={load.error} />
      {load.data && (
        <TableScroll>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
            {load.data.total} row(s), newest first
          </Typography>
          <CompactTable
            label="Audit trail"
            columns={['When', 'Staff', 'Action', 'Target', 'Change', 'Reason']}
          >
            {load.data.items.map((r) => (
              <TableRow key={r.id} data-testid="admin-audit-row" data-action={r.action}>
                <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(r.at)}</TableCell>
                <TableCell sx={{ maxWidth: 200, overflowWrap: 'break-word' }} title={r.actorId}>
                  {name(r.actorId)}
                </TableCell>
                <TableCell>{r.action}</TableCell>
                <TableCell sx={{ maxWidth: 200, overflowWrap: 'break-word' }} title={r.targetId}>
                  {name(r.targetId)}
                </TableCell>
                <TableCell
                  sx={{ minWidth: 200, maxWidth: 260, overflowWrap: 'anywhere' }}
                  data-testid="admin-audit-change"
                >
                  {describeAuditChange(r.before, r.after).map((line) => (
                    <div key={line}>{line}</div>
                  ))}
                </TableCell>
                <TableCell sx={{ minWidth: 140, maxWidth: 200, overflowWrap: 'break-word' }}>
                  {r.reason}
                </TableCell>
              </TableRow>
            ))}
          </CompactTable>
        </TableScroll>
      )}
    </Section>
  );
}
