import { Card, CardContent, Skeleton } from '@mui/material';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useParams } from 'react-router';
import { useApi } from '../../../app/context.tsx';
import { EmptyState } from '../../../components/ui/EmptyState.tsx';
import { Page } from '../../../components/ui/Page.tsx';
import { ChargeDetails } from '../components/ChargeDetails.tsx';
import { chargeQuery, isChargeCode } from '../queries.ts';
import { useChargeSideEffects } from '../useChargeSideEffects.ts';

export const CHARGE_NOT_FOUND_TEXT = 'This payment was not found.';

/**
 * `/charges/{transactionId}` (rules §2): the charge the add-funds flow opened in this tab, polled every
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
