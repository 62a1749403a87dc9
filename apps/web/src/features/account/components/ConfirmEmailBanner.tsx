import { Alert, AlertTitle, Button, Stack } from '@mui/material';
import type { TAccount } from '@pm/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useEnvironment, useSession } from '../../../app/context.tsx';
import { useToast } from '../../../components/ui/Toasts.tsx';
import { invalidateAccount } from '../../../lib/query/invalidate.ts';
import { queryKeys } from '../../../lib/query/keys.ts';
import {
  CONFIRM_EMAIL_TITLE,
  confirmEmailText,
  type ResendOutcome,
  resendConfirmation,
  resendToastOf,
} from '../emailConfirmation.ts';
import { useMyAccount } from '../useMyAccount.ts';

const TOAST_MS = 5000;

/**
 * Shown above every screen while the account's address is unconfirmed (the server refuses top-ups
 * and purchases until then): "Resend the link" asks the sign-in host for a new one; "I've
 * confirmed" fetches a fresh token, whose claim lets the API learn the confirmation at once.
 */
export function ConfirmEmailBanner() {
  const { data: account } = useMyAccount();
  const environment = useEnvironment();
  const session = useSession();
  const queryClient = useQueryClient();
  const showToast = useToast();
  const [busy, setBusy] = useState<'resend' | 'check' | null>(null);
  if (!account || account.emailVerified) return null;

  const toast = (outcome: ResendOutcome) => {
    const t = resendToastOf(outcome, account.email);
    showToast(t.message, { autoHideMs: TOAST_MS, severity: t.severity });
  };
  /** A fresh token, then the account again: confirmed now, or still waiting for the link. */
  const recheck = async (): Promise<boolean> => {
    await session.refreshToken().catch(() => {});
    await invalidateAccount(queryClient);
    return queryClient.getQueryData<TAccount>(queryKeys.account.my())?.emailVerified === true;
  };
  const handleResend = async () => {
    setBusy('resend');
    const outcome = await resendConfirmation(environment.issuer, session.getAccessToken());
    if (outcome === 'ALREADY_CONFIRMED') await recheck();
    setBusy(null);
    toast(outcome);
  };
  const handleCheck = async () => {
    setBusy('check');
    const confirmed = await recheck();
    setBusy(null);
    if (!confirmed) {
      showToast(`Not confirmed yet: open the link in the mail we sent to ${account.email}.`, {
        autoHideMs: TOAST_MS,
        severity: 'error',
      });
    }
  };

  return (
    <Alert severity="warning" data-testid="confirm-email-banner" sx={{ mb: 2 }}>
      <AlertTitle>{CONFIRM_EMAIL_TITLE}</AlertTitle>
      {confirmEmailText(account.email)}
      <Stack direction="row" spacing={1} useFlexGap sx={{ mt: 1, flexWrap: 'wrap' }}>
        <Button
          size="small"
          variant="outlined"
          color="inherit"
          disabled={busy !== null}
          onClick={handleResend}
        >
          Resend the link
        </Button>
        <Button size="small" color="inherit" disabled={busy !== null} onClick={handleCheck}>
          I've confirmed
        </Button>
      </Stack>
    </Alert>
  );
}
