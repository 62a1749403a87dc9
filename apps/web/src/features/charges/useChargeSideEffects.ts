import type { ChargeStatus } from '@pm/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { invalidateBalance } from '../../lib/query/invalidate.ts';
import { forgetOpenCharge } from './chargeStore.ts';
import { isChargeClosed } from './status.ts';

/**
 * What a charge's status means beyond its own view, wherever it is shown (the charge page, Add
 * Funds): the add-funds form's kept charge is forgotten once it is paid or expired, and the balance
 * and the Payments page reload when it turns paid.
 */
export function useChargeSideEffects(code: string, status: ChargeStatus | undefined): void {
  const queryClient = useQueryClient();
  const lastStatus = useRef(status);
  useEffect(() => {
    if (status && isChargeClosed(status)) forgetOpenCharge(window.localStorage, code);
    const turnedPaid = status === 'paid' && lastStatus.current !== undefined && lastStatus.current !== 'paid';
    lastStatus.current = status;
    if (turnedPaid) {
      void invalidateBalance(queryClient);
    }
  }, [code, status, queryClient]);
}
