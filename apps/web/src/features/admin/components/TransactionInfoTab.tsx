import { Button, MenuItem, Stack, TableCell, TableRow, TextField, Typography } from '@mui/material';
import { type BodyOf, type CurrencyId, type ENDPOINTS, type THeldCredit, ZCurrencyId } from '@pm/contracts';
import { useState } from 'react';
import { CompactTable } from '../../../components/ui/CompactTable.tsx';
import { formatDateTime } from '../../../lib/format/time.ts';
import { useAdmin, useLoadedUser } from '../adminContext.tsx';
import { useDecideHeld, useDeepCheck } from '../mutations.ts';
import { adminCryptoQuery, adminHeldQuery, useAskedQuery } from '../queries.ts';
import { formatUsd } from '../rules.ts';
import { ActionError, NeedsUser, Section, TableScroll } from './AdminParts.tsx';

const fmt = (iso: string | null) => (iso ? formatDateTime(iso) : '');
const short = (s: string) => (s.length > 18 ? `${s.slice(0, 10)}…${s.slice(-6)}` : s);

/** Transaction Info: the user's crypto transactions, deep check, held credits and flagged outputs. */
export function TransactionInfoTab() {
  const { client } = useAdmin();
  const { user } = useLoadedUser();
  const [txid, setTxid] = useState('');
  const [address, setAddress] = useState('');
  const [uid, setUid] = useState('');
  const [type, setType] = useState<CurrencyId | ''>('');
  const [note, setNote] = useState('');
  const txs = useAskedQuery((userId: string) => adminCryptoQuery(client, userId));
  const deep = useDeepCheck(client);
  const runDeepCheck = () => {
    const q: BodyOf<typeof ENDPOINTS.deepCheckPayments> = {};
    if (txid.trim()) q.txid = txid.trim();
    if (address.trim()) q.address = address.trim();
    if (uid.trim()) q.uid = uid.trim();
    if (type) q.type = type;
    if (Object.keys(q).every((k) => k === 'type') && user) q.user_id = user.userId;
    deep.start(q);
  };
  const held = useAskedQuery((userId: string | null) => adminHeldQuery(client, userId));
  // A decision marks the held credits stale (mutations.ts), so the list shown reloads.
  const decide = useDecideHeld(client);
  const decideOn = (item: THeldCredit, verb: 'release' | 'return') =>
    decide.start({ item, verb, note: note.trim() });

  return (
    <>
      <Section title="Crypto transactions">
        {!user && <NeedsUser />}
        <Button
          variant="contained"
          disabled={!user || txs.busy}
          onClick={() => user && txs.ask(user.userId)}
          data-testid="admin-load-crypto"
        >
          Load the user's crypto transactions
        </Button>
        <ActionError error={txs.error} />
        {txs.data && (
          <TableScroll>
            <CompactTable
              label="Crypto transactions"
              columns={[
                'Created',
                'Confirmed',
                'Type',
                'Txid',
                'Invoice',
                'Address',
                'Amount',
                'Credited',
                'State',
              ]}
            >
              {txs.data.transactions.map((t) => (
                <TableRow key={`${t.txid}-${t.uid}`} data-testid="admin-crypto-row">
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{fmt(t.time_created)}</TableCell>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{fmt(t.time_confirmed)}</TableCell>
                  <TableCell>{t.type}</TableCell>
                  <TableCell title={t.txid}>
                    <Button
                      size="small"
                      onClick={() => {
                        setTxid(t.txid);
                        setType(t.type === 'trc20usdt' ? '' : t.type);
                        setUid(t.uid);
                      }}
                    >
                      {short(t.txid)}
                    </Button>
                  </TableCell>
                  <TableCell>{t.uid}</TableCell>
                  <TableCell title={t.address}>{short(t.address)}</TableCell>
                  <TableCell>{t.amount}</TableCell>
                  <TableCell>{t.amountUsd === null ? '' : formatUsd(t.amountUsd)}</TableCell>
                  <TableCell>
                    {t.state}
                    {t.late ? ' (late)' : ''}
                  </TableCell>
                </TableRow>
              ))}
            </CompactTable>
            {txs.data.transactions.length === 0 && (
              <Typography sx={{ mt: 1 }}>No transactions found</Typography>
            )}
          </TableScroll>
        )}
      </Section>

      <Section title="Deep check">
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
          Rescans the chain for the charges picked by invoice, address, txid (with BTC or LTC) or, with none
          of them, the loaded user; credits what the watcher missed, once.
        </Typography>
        <Stack direction={{ xs: 'column', md: 'row' }} spacing={1.5}>
          <TextField
            size="small"
            label="Txid"
            value={txid}
            onChange={(e) => setTxid(e.target.value)}
            slotProps={{ htmlInput: { 'data-testid': 'admin-deep-txid' } }}
            sx={{ flex: 2 }}
          />
          <TextField
            size="small"
            label="Invoice (uid)"
            value={uid}
            onChange={(e) => setUid(e.target.value)}
            slotProps={{ htmlInput: { 'data-testid': 'admin-deep-uid' } }}
            sx={{ flex: 1 }}
          />
          <TextField
            size="small"
            label="Address"
            value={address}
            onChange={(e) => setAddress(e.target.value)}
            sx={{ flex: 2 }}
          />
          <TextField
            size="small"
            select
            label="Type"
            value={type}
            onChange={(e) => setType(ZCurrencyId.safeParse(e.target.value).data ?? '')}
            sx={{ minWidth: 110 }}
          >
            <MenuItem value="">any</MenuItem>
            <MenuItem value="btc">btc</MenuItem>
            <MenuItem value="ltc">ltc</MenuItem>
          </TextField>
          <Button
            variant="contained"
            disabled={deep.busy || (!txid.trim() && !address.trim() && !uid.trim() && !user)}
            onClick={runDeepCheck}
            data-testid="admin-deep-check"
          >
            Deep check
          </Button>
        </Stack>
        <ActionError error={deep.error} />
        {deep.result && (
          <Typography sx={{ mt: 1.5 }} data-testid="admin-deep-result">
            {deep.result.charges.length} charge(s) rescanned, {deep.result.transactions.length} payment(s)
            seen, {deep.result.credited.length} newly credited
            {deep.result.credited
              .map((c) => ` · ${c.txid.slice(0, 10)}… ${c.amountUsd === null ? '' : formatUsd(c.amountUsd)}`)
              .join('')}
          </Typography>
        )}
      </Section>

      <Section title="Held credits and flagged outputs">
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5} sx={{ mb: 1 }}>
          <Button
            variant="outlined"
            disabled={held.busy}
            onClick={() => held.ask(user?.userId ?? null)}
            data-testid="admin-load-held"
          >
            {user ? "Load the user's held credits" : 'Load all held credits'}
          </Button>
          <TextField
            size="small"
            label="Note for release/return"
            value={note}
            onChange={(e) => setNote(e.target.value)}
            slotProps={{ htmlInput: { maxLength: 500 } }}
            sx={{ flex: 1 }}
          />
        </Stack>
        <ActionError error={held.error ?? decide.error} />
        {held.data && (
          <TableScroll>
            <CompactTable
              label="Held credits"
              columns={['Time', 'User', 'Type', 'Amount', 'Would credit', 'Why', 'State', '']}
            >
              {held.data.held.map((h) => (
                <TableRow key={h.id}>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{fmt(h.time)}</TableCell>
                  <TableCell sx={{ maxWidth: 140, overflowWrap: 'anywhere' }}>{h.userId}</TableCell>
                  <TableCell>{h.type}</TableCell>
                  <TableCell>{h.amount}</TableCell>
                  <TableCell>{formatUsd(h.amountUsd)}</TableCell>
                  <TableCell>{h.reason === 'outputOverCap' ? 'flagged output' : 'over the cap'}</TableCell>
                  <TableCell>{h.state}</TableCell>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>
                    {h.state === 'held' && (
                      <>
                        <Button
                          size="small"
                          disabled={!note.trim() || decide.busy}
                          onClick={() => decideOn(h, 'release')}
                        >
                          Release
                        </Button>
                        <Button
                          size="small"
                          color="error"
                          disabled={!note.trim() || decide.busy}
                          onClick={() => decideOn(h, 'return')}
                        >
                          Return
                        </Button>
                      </>
                    )}
                  </TableCell>
                </TableRow>
              ))}
            </CompactTable>
            {held.data.held.length === 0 && <Typography sx={{ mt: 1 }}>No held credits</Typography>}
            <Typography variant="subtitle2" sx={{ mt: 2 }}>
              Credited payments later gone from the chain: {held.data.vanished.length}
            </Typography>
            {held.data.vanished.map((v) => (
              <Typography key={`${v.txid}-${v.uid}`} variant="body2">
                {fmt(v.vanishedAt)} · {v.userId} · {v.type} {v.amount} · {short(v.txid)}
              </Typography>
            ))}
          </TableScroll>
        )}
      </Section>
    </>
  );
}
