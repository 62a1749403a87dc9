import {
  Alert,
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
import { useEnvironment } from '../../../app/context.tsx';
import { SupportContacts } from '../../../components/ui/SupportContacts.tsx';
import {
  REFUND_CANCELED_TEXTS,
  REFUND_CANCELED_TITLE,
  REFUND_CONFIRM_TEXT,
  type RefundResult,
  refundOffersSupport,
  STATIC_REFUND_TEXT,
} from '../lifecycle.ts';

export const REFUNDING_TEXT = 'Refunding the proxy…';

/** Where the refund flow is: OFF, CONFIRM, PROGRESS, or a refusal shown in 'Refund Canceled'. */
export type RefundStep =
  | { step: 'OFF' | 'CONFIRM' | 'PROGRESS' }
  | { step: 'CANCELED'; result: Exclude<RefundResult, 'REFUND_STATUS_REFUNDED'> };

interface RefundDialogProps {
  lease: Pick<TLease, 'id' | 'static' | 'currentInfo'>;
  state: RefundStep;
  onConfirm: () => void;
  onClose: () => void;
}

/**
 * The refund dialogs (SPEC 2, 4, 8): the confirmation (full amount returned, the proxy stops), the
 * progress, and 'Refund Canceled'. A static lease gets only the instructions for support.
 */
export function RefundDialog({ lease, state, onConfirm, onClose }: RefundDialogProps) {
  if (state.step === 'OFF') return null;
  if (state.step === 'CONFIRM' && lease.static)
    return <StaticRefundDialog leaseId={lease.id} onClose={onClose} />;
  if (state.step === 'CONFIRM') {
    return (
      <Dialog open onClose={onClose} aria-labelledby="refund-title" maxWidth="xs" fullWidth>
        <DialogTitle id="refund-title">Refund Proxy</DialogTitle>
        <DialogContent>
          <Typography variant="body2">{REFUND_CONFIRM_TEXT}</Typography>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="contained" color="warning" onClick={onConfirm}>
            Refund
          </Button>
        </DialogActions>
      </Dialog>
    );
  }
  if (state.step === 'PROGRESS') {
    return (
      <Dialog open aria-labelledby="refunding-title" maxWidth="xs" fullWidth>
        <DialogContent>
          <Stack spacing={2} sx={{ alignItems: 'center', py: 2 }}>
            <CircularProgress aria-label="Refunding" />
            <Typography id="refunding-title">{REFUNDING_TEXT}</Typography>
          </Stack>
        </DialogContent>
      </Dialog>
    );
  }
  if (state.step === 'CANCELED') return <RefundCanceledDialog result={state.result} onClose={onClose} />;
  return null;
}

function RefundCanceledDialog({
  result,
  onClose,
}: {
  result: Exclude<RefundResult, 'REFUND_STATUS_REFUNDED'>;
  onClose: () => void;
}) {
  const { support } = useEnvironment();
  return (
    <Dialog
      open
      onClose={onClose}
      aria-labelledby="refund-canceled-title"
      maxWidth="xs"
      fullWidth
      data-testid={`refund-${result}`}
    >
      <DialogTitle id="refund-canceled-title">{REFUND_CANCELED_TITLE}</DialogTitle>
      <DialogContent>
        <Stack spacing={2}>
          <Typography variant="body2" data-testid="refund-canceled-text">
            {REFUND_CANCELED_TEXTS[result]}
          </Typography>
          {refundOffersSupport(result) && (
            <>
              <Typography variant="body2">Please contact support if you have questions:</Typography>
              <SupportContacts {...support} />
            </>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button variant="contained" onClick={onClose}>
          OK
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function StaticRefundDialog({ leaseId, onClose }: { leaseId: string; onClose: () => void }) {
  const { support } = useEnvironment();
  return (
    <Dialog
      open
      onClose={onClose}
      aria-labelledby="static-refund-title"
      maxWidth="xs"
      fullWidth
      data-testid="refund-static"
    >
      <DialogTitle id="static-refund-title">Refund Static Proxy</DialogTitle>
      <DialogContent>
        <Stack spacing={2}>
          <Typography variant="body2">{STATIC_REFUND_TEXT}</Typography>
          <Alert severity="info" icon={false}>
            <Typography
              sx={{ fontFamily: 'monospace', fontWeight: 700 }}
              data-testid="static-refund-lease-id"
            >
              {leaseId}
            </Typography>
          </Alert>
          <SupportContacts {...support} />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button variant="contained" onClick={onClose}>
          Close
        </Button>
      </DialogActions>
    </Dialog>
  );
}
