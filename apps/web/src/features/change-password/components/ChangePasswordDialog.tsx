import { Button, Dialog, DialogActions, DialogContent, DialogTitle } from '@mui/material';
import { ChangePasswordForm } from './ChangePasswordForm.tsx';

/** Desktop change-password dialog (phones use the /change-password page). */
export function ChangePasswordDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="xs" aria-labelledby="change-password-title">
      <DialogTitle id="change-password-title">Change Password</DialogTitle>
      <DialogContent>{open && <ChangePasswordForm onSent={onClose} />}</DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
      </DialogActions>
    </Dialog>
  );
}
