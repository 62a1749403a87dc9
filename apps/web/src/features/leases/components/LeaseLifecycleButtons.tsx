import { Button, Stack } from '@mui/material';
import type { TLease } from '@pm/contracts';
import { useState } from 'react';
import { useToast } from '../../../components/ui/Toasts.tsx';
import { REFUND_SUCCESS_TEXT, type RenewStep, renewStepOf } from '../lifecycle.ts';
import { useRefundMutation, useRenewMutation } from '../lifecycleMutations.ts';
import { RefundDialog, type RefundStep } from './RefundDialog.tsx';
import { RenewDialog } from './RenewDialog.tsx';

/** The refund toast stays 2 s (SPEC 9). */
const REFUND_TOAST_MS = 2_000;

interface LeaseLifecycleButtonsProps {
  lease: TLease;
  /** After a refund went through (the lease is gone from the active list). */
  onRefunded?: () => void;
}

/**
 * The Proxy Details popup's Renew and Refund (SPEC 2, 4, 8): enabled only when the lease is
 * renewable or its stats say refundable; each opens its dialogs.
 */
export function LeaseLifecycleButtons({ lease, onRefunded }: LeaseLifecycleButtonsProps) {
  const showToast = useToast();
  const [renewStep, setRenewStep] = useState<RenewStep>('OFF');
  const [refundState, setRefundState] = useState<RefundStep>({ step: 'OFF' });
  const renew = useRenewMutation(lease.id);
  const refund = useRefundMutation(lease.id);

  const handleRenew = () => {
    setRenewStep('PROGRESS');
    renew.mutate(undefined, { onSuccess: (result) => setRenewStep(renewStepOf(result)) });
  };
  const handleRefund = () => {
    setRefundState({ step: 'PROGRESS' });
    refund.mutate(undefined, {
      onSuccess: (result) => {
        if (result !== 'REFUND_STATUS_REFUNDED') return setRefundState({ step: 'CANCELED', result });
        setRefundState({ step: 'OFF' });
        showToast(REFUND_SUCCESS_TEXT, { autoHideMs: REFUND_TOAST_MS });
        onRefunded?.();
      },
    });
  };
  return (
    <Stack direction="row" spacing={1}>
      <Button
        size="small"
        variant="outlined"
        disabled={!lease.renewable}
        onClick={() => setRenewStep('CONFIRM')}
      >
        Renew
      </Button>
      <Button
        size="small"
        variant="outlined"
        color="warning"
        disabled={!lease.stats.refundable}
        onClick={() => setRefundState({ step: 'CONFIRM' })}
      >
        Refund
      </Button>
      <RenewDialog
        lease={lease}
        step={renewStep}
        onConfirm={handleRenew}
        onClose={() => setRenewStep('OFF')}
      />
      <RefundDialog
        lease={lease}
        state={refundState}
        onConfirm={handleRefund}
        onClose={() => setRefundState({ step: 'OFF' })}
      />
    </Stack>
  );
}
