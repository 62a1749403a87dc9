import { Button, Chip, Stack, TextField } from '@mui/material';
import { useState } from 'react';
import { DetailList } from '../../../components/ui/DetailList.tsx';
import { formatDateTime } from '../../../lib/format/time.ts';
import { toAdminError } from '../adminClient.ts';
import { useAdmin, useLoadedUser } from '../adminContext.tsx';
import {
  useMailResetLink,
  useResetTwoFactor,
  useSetBlocked,
  useSetDeposit,
  useSetPassword,
} from '../mutations.ts';
import { emailVerifiedText, formatUsd } from '../rules.ts';
import { ActionError, FieldRow, NeedsUser, Section } from './AdminParts.tsx';
import { useConfirmChange } from './ConfirmChange.tsx';

const fmtTime = (iso: string | null | undefined) => (iso ? formatDateTime(iso) : '');

/**
 * User Info: find by e-mail or by identity-provider user id, block/unblock, password, DEPOSIT. Every
 * change needs a reason (the audit keeps it); block and password changes confirm first; a search
 * drops the loaded user before it asks, so a failed one leaves nothing to act on.
 */
export function UserInfoTab() {
  const { client } = useAdmin();
  const { user, find: findUser, query: lookup } = useLoadedUser();
  const [email, setEmail] = useState('');
  const [userId, setUserId] = useState('');
  const [password, setPassword] = useState('');
  const [reason, setReason] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const { confirm, dialog } = useConfirmChange();
  const block = useSetBlocked(client);
  const changePassword = useSetPassword(client);
  const resetLink = useMailResetLink(client);
  const resetTwoFactor = useResetTwoFactor(client);
  const deposit = useSetDeposit(client);
  const changes = [block, changePassword, resetLink, resetTwoFactor, deposit];
  /** A new search forgets the last one's outcome along with its user. */
  const find = (by: 'email' | 'id', raw: string) => {
    setDone(null);
    for (const c of changes) c.reset();
    findUser({ by, value: raw.trim() });
  };
  /** Runs a change on the loaded user's e-mail and says what it did once the screens show it. */
  const onEmail = (run: (who: { email: string; reason: string }) => void) => {
    if (!user?.email) return;
    setDone(null);
    run({ email: user.email, reason });
  };
  const lookupError = lookup.error ? toAdminError(lookup.error).message : null;

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
      run: () =>
        onEmail((who) =>
          block.start(
            { ...who, blocked: !blocked },
            { onSuccess: (r) => setDone(r.blocked ? 'User blocked' : 'User unblocked') },
          ),
        ),
    });
  const depositChange = (grant: boolean) => {
    if (!user) return;
    setDone(null);
    deposit.start(
      { userId: user.userId, grant, reason },
      { onSuccess: () => setDone(grant ? 'DEPOSIT granted' : 'DEPOSIT revoked') },
    );
  };
  const askPassword = () =>
    confirm({
      title: 'Change this user’s password?',
      text: `Set a new password for ${who}; they are mailed that support changed it. Reason: ${why}`,
      confirmLabel: 'Change password',
      run: () =>
        onEmail((who) =>
          changePassword.start(
            { ...who, password },
            {
              onSuccess: () => {
                setPassword('');
                setDone('Password changed; the user was mailed that support changed it');
              },
            },
          ),
        ),
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
            onKeyDown={(e) => e.key === 'Enter' && email.trim() && find('email', email)}
            slotProps={{ htmlInput: { 'data-testid': 'admin-email' } }}
            sx={{ minWidth: { sm: 280 } }}
          />
          <Button
            variant="contained"
            disabled={!email.trim() || lookup.isFetching}
            onClick={() => find('email', email)}
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
            disabled={!userId.trim() || lookup.isFetching}
            onClick={() => find('id', userId)}
          >
            Load account
          </Button>
        </FieldRow>
        <ActionError error={lookupError} testId="admin-find-error" />
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
            onClick={() => depositChange(true)}
            data-testid="admin-grant-deposit"
          >
            Grant DEPOSIT
          </Button>
          <Button
            variant="outlined"
            disabled={cannot || !account || !hasDeposit}
            onClick={() => depositChange(false)}
            data-testid="admin-revoke-deposit"
          >
            Revoke DEPOSIT
          </Button>
          <Button
            variant="outlined"
            disabled={cannot || !user.email}
            onClick={() =>
              onEmail((who) => resetLink.start(who, { onSuccess: () => setDone('Reset link mailed') }))
            }
            data-testid="admin-reset-link"
          >
            Mail a reset link
          </Button>
          <Button
            variant="outlined"
            color="warning"
            disabled={cannot || !user.email || !hasTwoFactor}
            onClick={() =>
              onEmail((who) =>
                resetTwoFactor.start(who, {
                  onSuccess: () =>
                    setDone(
                      'Two-factor sign-in turned off; the user signs in with the password and may turn it on again',
                    ),
                }),
              )
            }
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
        {block.error && (
          <ActionError error={`Block/unblock failed: ${block.error}`} testId="admin-block-error" />
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
