import { useMutation } from '@tanstack/react-query';
import { useEnvironment } from '../../app/context.tsx';
import { useToast } from '../../components/ui/Toasts.tsx';
import {
  PASSWORD_CHANGE_FAILED_TEXT,
  PASSWORD_CHANGE_SENT_TEXT,
  PASSWORD_SNACKBAR_MS,
  requestPasswordChange,
} from './requestPasswordChange.ts';

/** Sends the password change e-mail and shows the outcome in a 2-second snackbar. */
export function usePasswordChangeMutation(onSent?: () => void) {
  const { issuer } = useEnvironment();
  const showToast = useToast();
  return useMutation({
    mutationFn: (email: string) => requestPasswordChange(issuer, email),
    onSuccess: (state) => {
      if (state === 'SUCCESS') {
        showToast(PASSWORD_CHANGE_SENT_TEXT, { autoHideMs: PASSWORD_SNACKBAR_MS });
        onSent?.();
      } else {
        showToast(PASSWORD_CHANGE_FAILED_TEXT, { autoHideMs: PASSWORD_SNACKBAR_MS, severity: 'error' });
      }
    },
  });
}
