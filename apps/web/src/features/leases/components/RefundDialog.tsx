import { Alert, Button, Stack, Typography } from '@mui/material';
import type { TLease } from '@pm/contracts';
import { useEnvironment } from '../../../app/context.tsx';
import { MessageDialog, ProgressDialog } from '../../../components/ui/StatusDialogs.tsx';
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
 * The refund dialogs (rules §2, 4, 8): the confirmation (full amount returned, the proxy stops), the
 * progress, and 'Refund Canceled'. A static lease gets only the instructions for support.
 */
export function RefundDialog({ lease, state, onConfirm, onClose }: RefundDialogProps) {
  if (state.step === 'OFF') return null;
  if (state.step === 'CONFIRM' && lease.static)
    return <StaticRefundDialog leaseId={lease.id} onClose={onClose} />;
  if (state.step === 'CONFIRM') {
    return (
      <MessageDialog
        title="Refund Proxy"
        text={REFUND_CONFIRM_TEXT}
        onClose={onClose}
        actions={
          <>
            <Button onClick={onClose}>Cancel</Button>
            <Button variant="contained" color="warning" onClick={onConfirm}>
              Refund
            </Button>
          </>
        }
      />
    );
  }
  if (state.step === 'PROGRESS') return <ProgressDialog text={REFUNDING_TEXT} label="Refunding" />;
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
    <MessageDialog
      title={REFUND_CANCELED_TITLE}
      onClose={onClose}
      data-testid={`refund-${result}`}
      actions={
        <Button variant="contained" onClick={onClose}>
          OK
        </Button>
      }
    >
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
    </MessageDialog>
  );
}

function StaticRefundDialog({ leaseId, onClose }: { leaseId: string; onClose: () => void }) {
  const { support } = useEnvironment();
  return (
    <MessageDialog
      title="Refund Static Proxy"
      onClose={onClose}
      data-testid="refund-static"
      actions={
        <Button variant="contained" onClick={onClose}>
          Close
        </Button>
      }
    >
      <Stack spacing={2}>
        <Typography variant="body2">{STATIC_REFUND_TEXT}</Typography>
        <Alert severity="info" icon={false}>
          <Typography sx={{ fontFamily: 'monospace', fontWeight: 700 }} data-testid="static-refund-lease-id">
            {leaseId}
          </Typography>
        </Alert>
        <SupportContacts {...support} />
      </Stack>
    </MessageDialog>
  );
}
