import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import { useState } from 'react';

/** A staff change waiting for its confirmation: what the dialog says and what Confirm runs. */
export interface PendingChange {
  title: string;
  /** Names the user and the change, e.g. "Block ann@example.com? Reason: chargeback". */
  text: string;
  confirmLabel: string;
  run: () => void;
}

/**
 * The confirmation step in front of a staff change that touches a customer's money or access: an
 * action asks `confirm(...)`, and only the dialog's Confirm runs it; Cancel (or Escape) changes nothing.
 */
export function useConfirmChange() {
  const [pending, setPending] = useState<PendingChange | null>(null);
  const dialog = (
    <Dialog open={pending !== null} onClose={() => setPending(null)} data-testid="admin-confirm">
      <DialogTitle>{pending?.title}</DialogTitle>
      <DialogContent>
        <DialogContentText data-testid="admin-confirm-text">{pending?.text}</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={() => setPending(null)} data-testid="admin-confirm-cancel">
          Cancel
        </Button>
        <Button
          variant="contained"
          data-testid="admin-confirm-ok"
          onClick={() => {
            const run = pending?.run;
            setPending(null);
            run?.();
          }}
        >
          {pending?.confirmLabel}
        </Button>
      </DialogActions>
    </Dialog>
  );
  return { confirm: setPending, dialog };
}
