import { Card, CardContent, Skeleton } from '@mui/material';
import type { ChargeStatus } from '@pm/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useRef } from 'react';
import { useParams } from 'react-router';
import { useApi } from '../../../app/context.tsx';
import { EmptyState } from '../../../components/ui/EmptyState.tsx';
import { Page } from '../../../components/ui/Page.tsx';
import { accountKeys } from '../../account/queries.ts';
import { paymentKeys } from '../../payments/queries.ts';
import { forgetOpenCharge } from '../chargeStore.ts';
import { ChargeDetails } from '../components/ChargeDetails.tsx';
import { chargeQuery, isChargeCode } from '../queries.ts';
import { isChargeClosed } from '../status.ts';

export const CHARGE_NOT_FOUND_TEXT = 'This payment was not found.';

/**
 * `/charges/{transactionId}` (SPEC 2): the charge the add-funds flow opened in this tab, polled every
 * 30 s until it is paid; then the balance and the Payments page reload.
 */
export function ChargePage() {
  const code = useParams().transactionId ?? '';
  const api = useApi();
  const queryClient = useQueryClient();
  const { data: charge, isPending } = useQuery(chargeQuery(api, queryClient, code));
  useChargeSideEffects(code, charge?.status);

  let content: ReactNode;
  if (!isChargeCode(code) || charge === null) {
    content = <EmptyState testId="charge-not-found">{CHARGE_NOT_FOUND_TEXT}</EmptyState>;
  } else if (isPending || !charge) {
    content = <Skeleton variant="rounded" height={260} />;
  } else {
    content = <ChargeDetails charge={charge} />;
  }
  return (
    <Page title="Payment">
      <Card>
        <CardContent>{content}</CardContent>
      </Card>
    </Page>
  );
}

/** Forgets the add-funds form's kept charge once it is paid or expired; reloads the balance when it turns paid. */
function useChargeSideEffects(code: string, status: ChargeStatus | undefined) {
  const queryClient = useQueryClient();
  const lastStatus = useRef(status);
  useEffect(() => {
    if (status && isChargeClosed(status)) forgetOpenCharge(window.localStorage, code);
    const turnedPaid = status === 'paid' && lastStatus.current !== undefined && lastStatus.current !== 'paid';
    lastStatus.current = status;
    if (turnedPaid) {
      void queryClient.invalidateQueries({ queryKey: accountKeys.all });
      void queryClient.invalidateQueries({ queryKey: paymentKeys.all });
    }
  }, [code, status, queryClient]);
}
