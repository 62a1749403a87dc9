import { Button, Stack, Typography } from '@mui/material';
import type { TLease } from '@pm/contracts';
import { type ReactNode, Suspense, useState } from 'react';
import { useToast } from '../../../components/ui/Toasts.tsx';
import { lazyNamed } from '../../../lib/lazyNamed.ts';
import { useNow } from '../../../lib/useNow.ts';
import { REFUND_SUCCESS_TEXT, type RenewStep, refundHint, renewHint, renewStepOf } from '../lifecycle.ts';
import { useRefundMutation, useRenewMutation } from '../lifecycleMutations.ts';
import type { RefundStep } from './RefundDialog.tsx';

// The dialogs (Modal and its transitions) load on the first click, not with My Proxies.
const RenewDialog = lazyNamed(() => import('./RenewDialog.tsx'), 'RenewDialog');
const RefundDialog = lazyNamed(() => import('./RefundDialog.tsx'), 'RefundDialog');

/** The refund toast stays 2 s (rules §9). */
const REFUND_TOAST_MS = 2_000;

interface LeaseLifecycleButtonsProps {
  lease: TLease;
  /** After a refund went through (the lease is gone from the active list). */
  onRefunded?: () => void;
}

/**
 * The Proxy Details popup's Renew and Refund (rules §2, 4, 8): enabled only when the lease is
 * renewable or its stats say refundable; each opens its dialogs. Beside each button a line says
 * why it is greyed (or what Refund does), so a disabled button is never a riddle.
 */
export function LeaseLifecycleButtons({ lease, onRefunded }: LeaseLifecycleButtonsProps) {
  const showToast = useToast();
  const [renewStep, setRenewStep] = useState<RenewStep>('OFF');
  const [refundState, setRefundState] = useState<RefundStep>({ step: 'OFF' });
  const renew = useRenewMutation(lease.id);
  const refund = useRefundMutation(lease.id);
  const now = useNow();
  const renewWhy = renewHint(lease, now);
  const refundWhy = refundHint(lease, now);

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
    <Stack spacing={0.75} sx={{ mb: 1.5 }} data-testid="lease-lifecycle">
      <ButtonWithHint id={`renew-hint-${lease.id}`} hint={renewWhy}>
        <Button
          size="small"
          variant="outlined"
          disabled={!lease.renewable}
          aria-describedby={renewWhy ? `renew-hint-${lease.id}` : undefined}
          onClick={() => setRenewStep('CONFIRM')}
        >
          Renew
        </Button>
      </ButtonWithHint>
      <ButtonWithHint id={`refund-hint-${lease.id}`} hint={refundWhy}>
        <Button
          size="small"
          variant="outlined"
          color="warning"
          disabled={!lease.stats.refundable}
          aria-describedby={`refund-hint-${lease.id}`}
          onClick={() => setRefundState({ step: 'CONFIRM' })}
        >
          Refund
        </Button>
      </ButtonWithHint>
      <Suspense fallback={null}>
        {renewStep !== 'OFF' && (
          <RenewDialog
            lease={lease}
            step={renewStep}
            onConfirm={handleRenew}
            onClose={() => setRenewStep('OFF')}
          />
        )}
        {refundState.step !== 'OFF' && (
          <RefundDialog
            lease={lease}
            state={refundState}
            onConfirm={handleRefund}
            onClose={() => setRefundState({ step: 'OFF' })}
          />
        )}
      </Suspense>
    </Stack>
  );
}

function ButtonWithHint({ id, hint, children }: { id: string; hint: string | null; children: ReactNode }) {
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
      {children}
      {hint && (
        <Typography id={id} variant="caption" color="text.secondary" data-testid="lifecycle-hint">
          {hint}
        </Typography>
      )}
    </Stack>
  );
}
