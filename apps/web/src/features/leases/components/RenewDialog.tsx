import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import {
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  Typography,
} from '@mui/material';
import type { TLease } from '@pm/contracts';
import { formatUsd } from '@pm/money';
import { useNavigate } from 'react-router';
import { useIsMobile } from '../../../app/context.tsx';
import { useDialogs } from '../../../app/dialogs.tsx';
import { RENEW_TEXTS, type RenewStep, renewPriceC } from '../lifecycle.ts';

export const RENEWING_TEXT = 'Renewing the proxy…';

interface RenewDialogProps {
  lease: Pick<TLease, 'currentInfo' | 'purchasePriceC' | 'start' | 'until'>;
  step: RenewStep;
  onConfirm: () => void;
  onClose: () => void;
}

/** The renew dialogs (SPEC 4, 8): confirm, progress, and the three messages of SPEC 8. */
export function RenewDialog({ lease, step, onConfirm, onClose }: RenewDialogProps) {
  if (step === 'OFF') return null;
  if (step === 'CONFIRM') {
    return (
      <Dialog open onClose={onClose} aria-labelledby="renew-title" maxWidth="xs" fullWidth>
        <DialogTitle id="renew-title">Renew Proxy</DialogTitle>
        <DialogContent>
          <Typography variant="body2">
            Renew {lease.currentInfo.ip} for another 24 hours for {formatUsd(renewPriceC(lease))}? The price
            is taken from your balance.
          </Typography>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="contained" onClick={onConfirm}>
            Renew
          </Button>
        </DialogActions>
      </Dialog>
    );
  }
  if (step === 'PROGRESS') {
    return (
      <Dialog open aria-labelledby="renewing-title" maxWidth="xs" fullWidth>
        <DialogContent>
          <Stack spacing={2} sx={{ alignItems: 'center', py: 2 }}>
            <CircularProgress aria-label="Renewing" />
            <Typography id="renewing-title">{RENEWING_TEXT}</Typography>
          </Stack>
        </DialogContent>
      </Dialog>
    );
  }
  return <RenewResultDialog step={step} onClose={onClose} />;
}

function RenewResultDialog({
  step,
  onClose,
}: {
  step: 'SUCCESS' | 'NOT_ENOUGH_FUNDS' | 'FAILED';
  onClose: () => void;
}) {
  const isMobile = useIsMobile();
  const navigate = useNavigate();
  const { openAddFunds } = useDialogs();
  const handleAddFunds = () => {
    onClose();
    if (isMobile) void navigate('/add-funds');
    else openAddFunds();
  };
  return (
    <Dialog
      open
      onClose={onClose}
      aria-labelledby="renew-result-title"
      maxWidth="xs"
      fullWidth
      data-testid={`renew-${step}`}
    >
      <DialogContent>
        <Stack spacing={1.5} sx={{ alignItems: 'center', py: 1, textAlign: 'center' }}>
          {step === 'SUCCESS' && <CheckCircleIcon color="success" sx={{ fontSize: 48 }} />}
          <Typography id="renew-result-title">{RENEW_TEXTS[step]}</Typography>
        </Stack>
      </DialogContent>
      <DialogActions>
        {step === 'NOT_ENOUGH_FUNDS' && <Button onClick={onClose}>Close</Button>}
        {step === 'NOT_ENOUGH_FUNDS' ? (
          <Button variant="contained" onClick={handleAddFunds}>
            Add Funds
          </Button>
        ) : (
          <Button variant="contained" onClick={onClose}>
            OK
          </Button>
        )}
      </DialogActions>
    </Dialog>
  );
}
