import CloseIcon from '@mui/icons-material/Close';
import { Dialog, DialogContent, DialogTitle, IconButton } from '@mui/material';
import { AddFundsForm } from './AddFundsForm.tsx';

/** Desktop add-funds modal, opened from the balance or the user menu. */
export function AddFundsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="sm" aria-labelledby="add-funds-title">
      <DialogTitle id="add-funds-title" sx={{ pr: 6 }}>
        Add Funds
        <IconButton aria-label="Close" onClick={onClose} sx={{ position: 'absolute', right: 8, top: 8 }}>
          <CloseIcon />
        </IconButton>
      </DialogTitle>
      <DialogContent sx={{ '&&': { pt: 1 } }}>{open && <AddFundsForm />}</DialogContent>
    </Dialog>
  );
}
