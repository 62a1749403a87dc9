import type { AlertColor } from '@mui/material';
import { createContext, type ReactNode, Suspense, useCallback, useContext, useState } from 'react';
import { lazyNamed } from '../../lib/lazyNamed.ts';
import type { Toast } from './ToastSnackbar.tsx';

type ShowToast = (message: string, options: { autoHideMs: number; severity?: AlertColor }) => void;

const ToastContext = createContext<ShowToast | null>(null);

// The snackbar's code loads with the first toast, not with the app.
const ToastSnackbar = lazyNamed(() => import('./ToastSnackbar.tsx'), 'ToastSnackbar');

/** One snackbar at a time for the whole app; a new toast replaces the current one. */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toast, setToast] = useState<Toast | null>(null);
  const [hasShown, setHasShown] = useState(false);
  const show = useCallback<ShowToast>((message, { autoHideMs, severity = 'success' }) => {
    setHasShown(true);
    setToast({ id: Date.now(), message, severity, autoHideMs });
  }, []);
  return (
    <ToastContext.Provider value={show}>
      {children}
      <Suspense fallback={null}>
        {hasShown && <ToastSnackbar toast={toast} onClose={() => setToast(null)} />}
      </Suspense>
    </ToastContext.Provider>
  );
}

/** Shows a snackbar: `showToast('Copied to clipboard', { autoHideMs: 3000 })`. */
export function useToast(): ShowToast {
  const show = useContext(ToastContext);
  if (!show) throw new Error('useToast needs <ToastProvider>');
  return show;
}
