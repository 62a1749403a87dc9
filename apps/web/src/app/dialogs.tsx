import { createContext, type ReactNode, useContext, useMemo, useState } from 'react';
import { AddFundsDialog } from '../features/add-funds/components/AddFundsDialog.tsx';
import { ChangePasswordDialog } from '../features/change-password/components/ChangePasswordDialog.tsx';

interface Dialogs {
  openAddFunds(): void;
  openChangePassword(): void;
}

const DialogsContext = createContext<Dialogs | null>(null);

/** App-wide desktop dialogs that open from anywhere (top bar, menus, other screens). */
export function DialogsProvider({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState<'addFunds' | 'changePassword' | null>(null);
  const dialogs = useMemo<Dialogs>(
    () => ({ openAddFunds: () => setOpen('addFunds'), openChangePassword: () => setOpen('changePassword') }),
    [],
  );
  const handleClose = () => setOpen(null);
  return (
    <DialogsContext.Provider value={dialogs}>
      {children}
      <AddFundsDialog open={open === 'addFunds'} onClose={handleClose} />
      <ChangePasswordDialog open={open === 'changePassword'} onClose={handleClose} />
    </DialogsContext.Provider>
  );
}

export function useDialogs(): Dialogs {
  const dialogs = useContext(DialogsContext);
  if (!dialogs) throw new Error('useDialogs needs <DialogsProvider>');
  return dialogs;
}
