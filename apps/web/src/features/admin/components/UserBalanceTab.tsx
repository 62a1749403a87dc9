import { Button, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import { useAdmin, useLoadedUser } from '../adminContext.tsx';
import { useChangeBalance } from '../mutations.ts';
import { formatUsd, parseBalanceDelta } from '../rules.ts';
import { ActionError, FieldRow, NeedsUser, Section } from './AdminParts.tsx';
import { useConfirmChange } from './ConfirmChange.tsx';

/**
 * User Balance: a change in integer cents with a reason; zero or non-numeric input is ignored (rules §5).
 * The change confirms first, naming the user, the amount and the balance it leads to.
 */
export function UserBalanceTab() {
  const { client } = useAdmin();
  const { user } = useLoadedUser();
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const delta = parseBalanceDelta(amount);
  const apply = useChangeBalance(client);
  const account = user?.account;
  const ready = user !== null && account !== null && account !== undefined;
  const { confirm, dialog } = useConfirmChange();
  const ask = () => {
    if (!user || !account || delta === null) return;
    confirm({
      title: 'Change this user’s balance?',
      text: `${delta > 0 ? 'Add' : 'Take'} ${formatUsd(Math.abs(delta))} ${delta > 0 ? 'to' : 'from'} ${
        user.email ?? user.userId
      }: balance ${formatUsd(account.balanceC)} -> ${formatUsd(account.balanceC + delta)}. Reason: ${reason.trim()}`,
      confirmLabel: 'Apply',
      run: () =>
        apply.start(
          { userId: user.userId, deltaC: delta, reason },
          {
            onSuccess: () => {
              setAmount('');
              setReason('');
            },
          },
        ),
    });
  };

  return (
    <Section title="Balance change">
      {!user && <NeedsUser />}
      {user && (
        <Typography sx={{ mb: 1.5 }} data-testid="admin-balance">
          {user.email ?? user.userId}: {account ? formatUsd(account.balanceC) : 'no market account yet'}
        </Typography>
      )}
      <FieldRow>
        <TextField
          size="small"
          label="Change in cents (e.g. 250 or -100)"
          value={amount}
          onChange={(e) => setAmount(e.target.value)}
          slotProps={{ htmlInput: { inputMode: 'numeric', 'data-testid': 'admin-balance-delta' } }}
          helperText={
            amount.trim() && delta === null
              ? 'Whole cents, not zero: ignored'
              : delta
                ? formatUsd(delta)
                : ' '
          }
          sx={{ minWidth: { sm: 260 } }}
        />
        <TextField
          size="small"
          label="Reason"
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          slotProps={{ htmlInput: { maxLength: 500, 'data-testid': 'admin-balance-reason' } }}
          helperText="Kept in the audit trail"
          sx={{ flex: 1 }}
        />
        <Button
          variant="contained"
          disabled={!ready || delta === null || !reason.trim() || apply.busy}
          onClick={ask}
          data-testid="admin-balance-apply"
        >
          Apply
        </Button>
      </FieldRow>
      {dialog}
      <ActionError error={apply.error} />
      {apply.result !== null && !apply.busy && !apply.error && (
        <Typography sx={{ mt: 1.5 }} color="success.main" data-testid="admin-balance-done">
          New balance {formatUsd(apply.result.balanceC)}
        </Typography>
      )}
    </Section>
  );
}
