import { Alert, type AlertColor, Snackbar } from '@mui/material';
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';

interface Toast {
  id: number;
  message: string;
  severity: AlertColor;
  autoHideMs: number;
}

type ShowToast = (message: string, options: { autoHideMs: number; severity?: AlertColor }) => void;

const ToastContext = createContext<ShowToast | null>(null);

/** One snackbar at a time for the whole app; a new toast replaces the current one. */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toast, setToast] = useState<Toast | null>(null);
  const show = useCallback<ShowToast>((message, { autoHideMs, severity = 'success' }) => {
    setToast({ id: Date.now(), message, severity, autoHideMs });
  }, []);
  const value = useMemo(() => show, [show]);
  const handleClose = (_: unknown, reason?: string) => {
    if (reason !== 'clickaway') setToast(null);
  };
  return (
    <ToastContext.Provider value={value}>
      {children}
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
    </ToastContext.Provider>
  );
}

/** Shows a snackbar: `showToast('Copied to clipboard', { autoHideMs: 3000 })`. */
export function useToast(): ShowToast {
  const show = useContext(ToastContext);
  if (!show) throw new Error('useToast needs <ToastProvider>');
  return show;
}
