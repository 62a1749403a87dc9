import { Alert, Button, Skeleton, Stack, Typography } from '@mui/material';
import { useMyAccount } from '../../account/useMyAccount.ts';
import { usePasswordChangeMutation } from '../mutations.ts';
import { PASSWORD_CHANGE_SENT_TEXT } from '../requestPasswordChange.ts';

/** Explains the e-mail flow and sends the change link to the account's address. */
export function ChangePasswordForm({ onSent }: { onSent?: () => void }) {
  const { data: account } = useMyAccount();
  const mutation = usePasswordChangeMutation(onSent);
  if (!account) return <Skeleton variant="rounded" height={96} />;
  const state = mutation.data ?? 'NONE';
  return (
    <Stack spacing={2}>
      <Typography>
        We will send a link to change your password to <strong>{account.email}</strong>. Follow it to choose a
        new password.
      </Typography>
      {state === 'SUCCESS' && !onSent && <Alert severity="success">{PASSWORD_CHANGE_SENT_TEXT}</Alert>}
      <Button
        variant="contained"
        disabled={mutation.isPending}
        onClick={() => mutation.mutate(account.email)}
        sx={{ alignSelf: 'flex-start' }}
      >
        {mutation.isPending ? 'Sending…' : 'Send Email'}
      </Button>
    </Stack>
  );
}
