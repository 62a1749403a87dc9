import { Alert, type AlertColor, Snackbar } from '@mui/material';

export interface Toast {
  id: number;
  message: string;
  severity: AlertColor;
  autoHideMs: number;
}

/** The snackbar that shows the current toast (or animates the last one out when it is null). */
export function ToastSnackbar({ toast, onClose }: { toast: Toast | null; onClose: () => void }) {
  const handleClose = (_: unknown, reason?: string) => {
    if (reason !== 'clickaway') onClose();
  };
  return (
    <Snackbar
      key={toast?.id}
      open={toast !== null}
      autoHideDuration={toast?.autoHideMs ?? null}
      onClose={handleClose}
      anchorOrigin={{ vertical: 'bottom', horizontal: 'center' }}
    >
      <Alert
        onClose={handleClose}
        severity={toast?.severity ?? 'success'}
        variant="filled"
        sx={{ width: '100%' }}
      >
        {toast?.message}
      </Alert>
    </Snackbar>
  );
}
