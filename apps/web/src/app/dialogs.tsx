import { createContext, type ReactNode, Suspense, useContext, useMemo, useState } from 'react';
import { lazyNamed } from '../lib/lazyNamed.ts';

// Each dialog's code loads when it first opens, and it stays mounted after that so it can animate out.
const AddFundsDialog = lazyNamed(
  () => import('../features/add-funds/components/AddFundsDialog.tsx'),
  'AddFundsDialog',
);
const ChangePasswordDialog = lazyNamed(
  () => import('../features/change-password/components/ChangePasswordDialog.tsx'),
  'ChangePasswordDialog',
);

type DialogName = 'addFunds' | 'changePassword';

interface Dialogs {
  openAddFunds(): void;
  openChangePassword(): void;
}

const DialogsContext = createContext<Dialogs | null>(null);

/** App-wide desktop dialogs that open from anywhere (top bar, menus, other screens). */
export function DialogsProvider({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState<DialogName | null>(null);
  const [opened, setOpened] = useState<ReadonlySet<DialogName>>(new Set());
  const dialogs = useMemo<Dialogs>(() => {
    const show = (name: DialogName) => {
      setOpened((s) => (s.has(name) ? s : new Set([...s, name])));
      setOpen(name);
    };
    return { openAddFunds: () => show('addFunds'), openChangePassword: () => show('changePassword') };
  }, []);
  const handleClose = () => setOpen(null);
  return (
    <DialogsContext.Provider value={dialogs}>
      {children}
      <Suspense fallback={null}>
        {opened.has('addFunds') && <AddFundsDialog open={open === 'addFunds'} onClose={handleClose} />}
        {opened.has('changePassword') && (
          <ChangePasswordDialog open={open === 'changePassword'} onClose={handleClose} />
        )}
      </Suspense>
    </DialogsContext.Provider>
  );
}

export function useDialogs(): Dialogs {
  const dialogs = useContext(DialogsContext);
  if (!dialogs) throw new Error('useDialogs needs <DialogsProvider>');
  return dialogs;
}
