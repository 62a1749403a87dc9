import { Alert, Button, Divider, Skeleton, Stack, Typography } from '@mui/material';
import { useSession } from '../../../app/context.tsx';
import { useMyAccount } from '../../account/useMyAccount.ts';
import { usePasswordChangeMutation } from '../mutations.ts';
import { PASSWORD_CHANGE_SENT_TEXT } from '../requestPasswordChange.ts';

/**
 * Explains the e-mail flow and sends the change link to the account's address; below it, the way to
 * the sign-in host's two-factor settings (the account's other sign-in setting).
 */
export function ChangePasswordForm({ onSent }: { onSent?: () => void }) {
  const { data: account } = useMyAccount();
  const session = useSession();
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
      <Divider />
      <Typography variant="body2" color="text.secondary">
        Two-factor sign-in asks for a code from an app on your phone after your password. Turn it on or off on
        the sign-in page (you enter your password again).
      </Typography>
      <Button
        variant="outlined"
        onClick={() => void session.manageTwoFactor()}
        sx={{ alignSelf: 'flex-start' }}
      >
        Two-factor sign-in
      </Button>
    </Stack>
  );
}
