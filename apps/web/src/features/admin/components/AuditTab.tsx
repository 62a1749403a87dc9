import { Button, MenuItem, Stack, TableCell, TableRow, TextField, Typography } from '@mui/material';
import { AUDIT_ACTIONS, type AuditAction } from '@pm/contracts';
import { useState } from 'react';
import { CompactTable } from '../../../components/ui/CompactTable.tsx';
import { formatDateTime } from '../../../lib/format/time.ts';
import type { AdminClient } from '../adminClient.ts';
import { ActionError, Section, TableScroll, useAction, useAdmin } from '../adminContext.tsx';
import { auditPersonIds, describeAuditChange } from '../auditText.ts';
import { nextDay } from '../rules.ts';
import { PastDayField } from './UserPaymentsTab.tsx';

/** The e-mail of each person id (its market account's); an id without an account stays an id. */
async function emailsOf(client: AdminClient, ids: string[]): Promise<Map<string, string>> {
  const found = await Promise.all(
    ids.map((id) =>
      client.account(id).then(
        (a) => [id, a.email] as const,
        () => [id, id] as const,
      ),
    ),
  );
  return new Map(found);
}

/**
 * Audit: who did what to whom (by e-mail where the id is a person's), when, and the change as
 * readable lines; filter by staff, customer, action, date.
 */
export function AuditTab() {
  const { client, user } = useAdmin();
  const [actor, setActor] = useState('');
  const [target, setTarget] = useState('');
  const [action, setAction] = useState<AuditAction | ''>('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const load = useAction(async () => {
    const page = await client.audit({
      actor: actor.trim() || undefined,
      target: target.trim() || undefined,
      action: action || undefined,
      from: from || undefined,
      to: to ? nextDay(to) : undefined,
      limit: 200,
    });
    return { ...page, emails: await emailsOf(client, auditPersonIds(page.items)) };
  });
  const name = (id: string) => load.result?.emails.get(id) ?? id;

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
            columns={['When', 'Staff', 'Action', 'Target', 'Change', 'Reason']}
          >
            {load.result.items.map((r) => (
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
