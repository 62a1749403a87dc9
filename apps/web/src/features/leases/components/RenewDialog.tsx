import { Button } from '@mui/material';
import type { TLease } from '@pm/contracts';
import { formatUsd } from '@pm/money';
import { useNavigate } from 'react-router';
import { useIsMobile } from '../../../app/context.tsx';
import { useDialogs } from '../../../app/dialogs.tsx';
import { MessageDialog, ProgressDialog, SuccessDialog } from '../../../components/ui/StatusDialogs.tsx';
import { RENEW_TEXTS, type RenewStep, renewPriceC } from '../lifecycle.ts';

export const RENEWING_TEXT = 'Renewing the proxy…';

interface RenewDialogProps {
  lease: Pick<TLease, 'currentInfo' | 'purchasePriceC' | 'start' | 'until'>;
  step: RenewStep;
  onConfirm: () => void;
  onClose: () => void;
}

/** The renew dialogs (rules §4, 8): confirm, progress, and the three messages of rules §8. */
export function RenewDialog({ lease, step, onConfirm, onClose }: RenewDialogProps) {
  if (step === 'OFF') return null;
  if (step === 'CONFIRM') {
    return (
      <MessageDialog
        title="Renew Proxy"
        text={`Renew ${lease.currentInfo.ip} for another 24 hours for ${formatUsd(renewPriceC(lease))}? The price is taken from your balance.`}
        onClose={onClose}
        actions={
          <>
            <Button onClick={onClose}>Cancel</Button>
            <Button variant="contained" onClick={onConfirm}>
              Renew
            </Button>
          </>
        }
      />
    );
  }
  if (step === 'PROGRESS') return <ProgressDialog text={RENEWING_TEXT} label="Renewing" />;
  return <RenewResultDialog step={step} onClose={onClose} />;
}

/** Rules §8's renew messages; each message is its dialog's title. */
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
  const ok = (
    <Button variant="contained" onClick={onClose}>
      OK
    </Button>
  );
  if (step === 'SUCCESS') {
    return (
      <SuccessDialog title={RENEW_TEXTS.SUCCESS} onClose={onClose} data-testid="renew-SUCCESS" actions={ok} />
    );
  }
  return (
    <MessageDialog
      title={RENEW_TEXTS[step]}
      onClose={onClose}
      data-testid={`renew-${step}`}
      actions={
        step === 'NOT_ENOUGH_FUNDS' ? (
          <>
            <Button onClick={onClose}>Close</Button>
            <Button variant="contained" onClick={handleAddFunds}>
              Add Funds
            </Button>
          </>
        ) : (
          ok
        )
      }
    />
  );
}
