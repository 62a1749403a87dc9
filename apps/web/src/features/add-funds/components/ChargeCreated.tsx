import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import { Alert, Button, Skeleton, Stack } from '@mui/material';
import { type Cents, formatUsd } from '@pm/money';
import { type DetailItem, DetailList } from '../../../components/ui/DetailList.tsx';
import { chargePath, type OpenCharge } from '../../charges/chargeStore.ts';
import { currencyLabel, formatCrypto } from '../../charges/format.ts';
import type { ChargeNotice, ChargeView } from '../keptCharge.ts';

export const TAB_OPENED_TEXT = 'Your payment page has opened in a new tab.';
export const TAB_BLOCKED_TEXT =
  'Your browser blocked the new tab. Please allow pop-ups for this site, or open the payment page below.';
export const OPEN_PAYMENT_TEXT =
  'You have an open payment: send the amount below to the address below, or start a new payment.';
export const ARRIVING_TEXT =
  'Your payment has arrived and is waiting for confirmations: do not send it again. Your balance rises once it is confirmed.';
export const paidText = (creditedC: Cents): string =>
  `Your last payment is paid: ${formatUsd(creditedC)} was credited to your balance. Start a new payment to add more.`;
export const partialText = (creditedC: Cents): string =>
  `Less than the requested amount arrived: ${formatUsd(creditedC)} was credited to your balance. You can send the rest from the payment page before the address expires, or start a new payment.`;

const NOTICES = {
  opened: { severity: 'success', text: TAB_OPENED_TEXT },
  blocked: { severity: 'warning', text: TAB_BLOCKED_TEXT },
  kept: { severity: 'info', text: OPEN_PAYMENT_TEXT },
} as const satisfies Record<ChargeNotice, { severity: string; text: string }>;

/**
 * The charge Add Funds created or kept, as the server sees it now (keptCharge.ts): an open one with
 * its currency, address and amount (rules §4 "Add funds"); one on its way, partly paid or paid with
 * what was credited. Each offers New payment, which resets the form.
 */
export function ChargeCreated({
  charge,
  view,
  onReset,
}: {
  charge: OpenCharge;
  view: ChargeView;
  onReset: () => void;
}) {
  if (view.kind === 'checking' || view.kind === 'closed')
    return <Skeleton variant="rounded" height={160} data-testid="charge-checking" />;
  const newPayment = (
    <Button variant={view.kind === 'paid' ? 'contained' : 'text'} onClick={onReset}>
      New payment
    </Button>
  );
  if (view.kind === 'paid') {
    return (
      <Stack spacing={2} data-testid="charge-paid">
        <Alert severity="success" data-notice="paid">
          {paidText(view.creditedC)}
        </Alert>
        <Stack direction="row">{newPayment}</Stack>
      </Stack>
    );
  }
  const alert =
    view.kind === 'open'
      ? { severity: NOTICES[view.notice].severity, text: NOTICES[view.notice].text, notice: view.notice }
      : view.kind === 'arriving'
        ? { severity: 'info' as const, text: ARRIVING_TEXT, notice: 'arriving' }
        : { severity: 'warning' as const, text: partialText(view.creditedC), notice: 'partial' };
  return (
    <Stack spacing={2} data-testid="charge-created">
      <Alert severity={alert.severity} data-notice={alert.notice}>
        {alert.text}
      </Alert>
      {view.kind === 'open' && <DetailList items={chargeItems(charge)} />}
      <Stack direction="row" spacing={1.5} sx={{ flexWrap: 'wrap', rowGap: 1 }}>
        <Button
          variant="contained"
          href={chargePath(charge.code)}
          target="_blank"
          rel="noopener"
          endIcon={<OpenInNewIcon />}
        >
          Open payment page
        </Button>
        {newPayment}
      </Stack>
    </Stack>
  );
}

/** What to send, and where: rules §4 "Add funds" (currency, address, amount). */
function chargeItems(charge: OpenCharge): DetailItem[] {
  return [
    { label: 'Currency', value: currencyLabel(charge.currency) },
    {
      label: 'Address',
      value: (
        <span data-testid="created-address" style={{ fontFamily: 'monospace' }}>
          {charge.address}
        </span>
      ),
    },
    { label: 'Amount', value: formatCrypto(charge.amountCrypto, charge.currency) },
    { label: 'USD amount', value: formatUsd(charge.amountUsdC) },
  ];
}
