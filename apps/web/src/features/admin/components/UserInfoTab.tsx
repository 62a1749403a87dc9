import { Button, Chip, Stack, TextField } from '@mui/material';
import { useState } from 'react';
import { DetailList } from '../../../components/ui/DetailList.tsx';
import { formatDateTime } from '../../../lib/format/time.ts';
import { AdminError } from '../adminClient.ts';
import { ActionError, FieldRow, NeedsUser, Section, useAction, useAdmin } from '../adminContext.tsx';
import { emailVerifiedText, formatUsd } from '../rules.ts';
import { useConfirmChange } from './ConfirmChange.tsx';

const fmtTime = (iso: string | null | undefined) => (iso ? formatDateTime(iso) : '');

/**
 * User Info: find by e-mail or by identity-provider user id, block/unblock, password, DEPOSIT. Every
 * change needs a reason (the audit keeps it); block and password changes confirm first; a search
 * drops the loaded user before it asks, so a failed one leaves nothing to act on.
 */
export function UserInfoTab() {
  const { client, user, setUser, updateUser } = useAdmin();
  const [email, setEmail] = useState('');
  const [userId, setUserId] = useState('');
  const [password, setPassword] = useState('');
  const [reason, setReason] = useState('');
  const [blockFailed, setBlockFailed] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const { confirm, dialog } = useConfirmChange();
  const forget = () => {
    setUser(null);
    setDone(null);
    setBlockFailed(false);
  };

  const find = useAction(async (raw: string) => {
    forget();
    const info = await client.userInfo(raw.trim());
    const account = await client.account(info.userId).catch((e: unknown) => {
      if (e instanceof AdminError && e.status === 404) return null;
      throw e;
    });
    setUser({ info, account, userId: info.userId, email: info.email });
  });
  const byId = useAction(async (raw: string) => {
    forget();
    const account = await client.account(raw.trim());
    const info = await client.userInfo(account.email).catch(() => null);
    setUser({ info, account, userId: account.userID, email: account.email });
  });
  const block = useAction(async (blocked: boolean) => {
    if (!user?.email) return;
    setDone(null);
    setBlockFailed(false);
    try {
      const r = await client.setBlocked(user.email, blocked, reason);
      if (user.info) updateUser({ info: { ...user.info, blocked: r.blocked } });
      setDone(r.blocked ? 'User blocked' : 'User unblocked');
    } catch (e) {
      setBlockFailed(true);
      throw e;
    }
  });
  const changePassword = useAction(async () => {
    if (!user?.email) return;
    setDone(null);
    await client.setPassword(user.email, password, reason);
    setPassword('');
    setDone('Password changed; the user was mailed that support changed it');
  });
  const resetLink = useAction(async () => {
    if (!user?.email) return;
    setDone(null);
    await client.mailResetLink(user.email, reason);
    setDone('Reset link mailed');
  });
  const resetTwoFactor = useAction(async () => {
    if (!user?.email) return;
    setDone(null);
    await client.resetTwoFactor(user.email, reason);
    if (user.info) updateUser({ info: { ...user.info, twoFactor: false } });
    setDone('Two-factor sign-in turned off; the user signs in with the password and may turn it on again');
  });
  const deposit = useAction(async (grant: boolean) => {
    if (!user) return;
    setDone(null);
    updateUser({ account: await client.setDeposit(user.userId, grant, reason) });
    setDone(grant ? 'DEPOSIT granted' : 'DEPOSIT revoked');
  });

  const loaded = user !== null;
  const info = user?.info;
  const account = user?.account;
  const hasDeposit = account?.permissions.includes('DEPOSIT') ?? false;
  const blocked = info?.blocked ?? account?.blocked ?? false;
  const anyBusy = block.busy || changePassword.busy || resetLink.busy || deposit.busy || resetTwoFactor.busy;
  const hasTwoFactor = info?.twoFactor === true;
  const why = reason.trim();
  /** Every change needs a loaded user, a reason and no other change running. */
  const cannot = !loaded || !why || anyBusy;
  const who = user?.email ?? user?.userId ?? '';
  const askBlock = () =>
    confirm({
      title: blocked ? 'Unblock this user?' : 'Block this user?',
      text: `${blocked ? 'Unblock' : 'Block'} ${who}. Reason: ${why}`,
      confirmLabel: blocked ? 'Unblock' : 'Block',
      run: () => void block.start(!blocked),
    });
  const askPassword = () =>
    confirm({
      title: 'Change this user’s password?',
      text: `Set a new password for ${who}; they are mailed that support changed it. Reason: ${why}`,
      confirmLabel: 'Change password',
      run: () => void changePassword.start(),
    });

  return (
    <>
      <Section title="Find a user">
        <FieldRow>
          <TextField
            size="small"
            label="E-mail"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            onKeyDown={(e) => e.key === 'Enter' && email.trim() && void find.start(email)}
            slotProps={{ htmlInput: { 'data-testid': 'admin-email' } }}
            sx={{ minWidth: { sm: 280 } }}
          />
          <Button
            variant="contained"
            disabled={!email.trim() || find.busy}
            onClick={() => void find.start(email)}
          >
            Find by e-mail
          </Button>
          <TextField
            size="small"
            label="Identity-provider user id"
            value={userId}
            onChange={(e) => setUserId(e.target.value)}
            slotProps={{ htmlInput: { 'data-testid': 'admin-user-id' } }}
            sx={{ minWidth: { sm: 240 } }}
          />
          <Button
            variant="outlined"
            disabled={!userId.trim() || byId.busy}
            onClick={() => void byId.start(userId)}
          >
            Load account
          </Button>
        </FieldRow>
        <ActionError error={find.error ?? byId.error} testId="admin-find-error" />
      </Section>

      <Section title="User data" testId="admin-user-data">
        {loaded ? (
          <DetailList
            testId="admin-user-details"
            items={[
              { label: 'Username', value: info?.username },
              { label: 'E-mail', value: user.email },
              {
                label: 'E-mail verified',
                value: (
                  <span data-testid="admin-email-verified">
                    {emailVerifiedText(info?.emailVerified, account)}
                  </span>
                ),
              },
              { label: 'User id', value: user.userId },
              { label: 'Invite code', value: info?.inviteCode ?? account?.refcode },
              { label: 'Created', value: fmtTime(info?.created) },
              { label: 'Last login', value: fmtTime(info?.lastLogin) },
              { label: 'Last IP', value: info?.lastIp },
              { label: 'Balance', value: account ? formatUsd(account.balanceC) : 'no market account yet' },
              { label: 'Permissions', value: account?.permissions.join(', ') },
              {
                label: 'Two-factor sign-in',
                value:
                  info?.twoFactor === undefined ? (
                    ''
                  ) : (
                    <span data-testid="admin-two-factor">{info.twoFactor ? 'on' : 'off'}</span>
                  ),
              },
              {
                label: 'Status',
                value: (
                  <Chip
                    size="small"
                    data-testid="admin-blocked-state"
                    color={blocked ? 'error' : 'success'}
                    label={blocked ? 'Blocked' : 'Active'}
                  />
                ),
              },
            ]}
          />
        ) : (
          <NeedsUser />
        )}
      </Section>

      <Section title="Actions">
        {!loaded && <NeedsUser />}
        <TextField
          size="small"
          fullWidth
          label="Reason (needed for every change; kept in the audit trail)"
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          slotProps={{ htmlInput: { maxLength: 500, 'data-testid': 'admin-reason' } }}
          sx={{ mb: 1.5 }}
        />
        <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap', mb: 1.5 }}>
          <Button
            variant="contained"
            color={blocked ? 'success' : 'error'}
            disabled={cannot || !user.email}
            onClick={askBlock}
            data-testid="admin-block"
          >
            {blocked ? 'Unblock' : 'Block'}
          </Button>
          <Button
            variant="outlined"
            disabled={cannot || !account || hasDeposit}
            onClick={() => void deposit.start(true)}
            data-testid="admin-grant-deposit"
          >
            Grant DEPOSIT
          </Button>
          <Button
            variant="outlined"
            disabled={cannot || !account || !hasDeposit}
            onClick={() => void deposit.start(false)}
            data-testid="admin-revoke-deposit"
          >
            Revoke DEPOSIT
          </Button>
          <Button
            variant="outlined"
            disabled={cannot || !user.email}
            onClick={() => void resetLink.start()}
            data-testid="admin-reset-link"
          >
            Mail a reset link
          </Button>
          <Button
            variant="outlined"
            color="warning"
            disabled={cannot || !user.email || !hasTwoFactor}
            onClick={() => void resetTwoFactor.start()}
            data-testid="admin-reset-2fa"
            title="For a user who lost their phone and recovery codes; needs a reason"
          >
            Reset 2FA
          </Button>
        </Stack>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5}>
          <TextField
            size="small"
            type="password"
            label="New password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            slotProps={{ htmlInput: { 'data-testid': 'admin-password' } }}
          />
          <Button
            variant="outlined"
            disabled={cannot || !user.email || !password}
            onClick={askPassword}
            data-testid="admin-change-password"
          >
            Change password
          </Button>
        </Stack>
        {blockFailed && (
          <ActionError
            error={`Block/unblock failed: ${block.error ?? 'global error'}`}
            testId="admin-block-error"
          />
        )}
        <ActionError
          error={changePassword.error ?? resetLink.error ?? deposit.error ?? resetTwoFactor.error}
        />
        {done && !anyBusy && (
          <Chip sx={{ mt: 1.5 }} color="success" variant="outlined" label={done} data-testid="admin-done" />
        )}
        {dialog}
      </Section>
    </>
  );
}
