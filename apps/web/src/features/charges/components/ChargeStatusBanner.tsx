import { Alert, AlertTitle } from '@mui/material';
import type { TChargePage } from '@pm/contracts';
import { describeCharge } from '../status.ts';

/** The charge's state as a coloured banner: label and what it means. */
export function ChargeStatusBanner({ charge }: { charge: TChargePage }) {
  const view = describeCharge(charge);
  return (
    <Alert severity={view.tone} data-testid="charge-status" data-status={charge.status} role="status">
      <AlertTitle sx={{ mb: 0.25 }}>{view.label}</AlertTitle>
      {view.detail}
    </Alert>
  );
}
