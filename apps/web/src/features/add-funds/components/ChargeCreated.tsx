import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import { Alert, Button, Stack } from '@mui/material';
import { formatUsd } from '@pm/money';
import { type DetailItem, DetailList } from '../../../components/ui/DetailList.tsx';
import { chargePath, type OpenCharge } from '../../charges/chargeStore.ts';
import { currencyLabel, formatCrypto } from '../../charges/format.ts';

export const TAB_OPENED_TEXT = 'Your payment page has opened in a new tab.';
export const TAB_BLOCKED_TEXT =
  'Your browser blocked the new tab. Please allow pop-ups for this site, or open the payment page below.';
export const OPEN_PAYMENT_TEXT =
  'You have an open payment: send the amount below to the address below, or start a new payment.';

/** How the charge got here: just created (its tab opened, or the browser blocked it), or kept from before. */
export type ChargeNotice = 'opened' | 'blocked' | 'kept';

const NOTICES = {
  opened: { severity: 'success', text: TAB_OPENED_TEXT },
  blocked: { severity: 'warning', text: TAB_BLOCKED_TEXT },
  kept: { severity: 'info', text: OPEN_PAYMENT_TEXT },
} as const;

/**
 * The created charge (SPEC 4 "Add funds": currency, address, amount), with a link to its page and
 * New Payment to reset the form.
 */
export function ChargeCreated({
  charge,
  notice,
  onReset,
}: {
  charge: OpenCharge;
  notice: ChargeNotice;
  onReset: () => void;
}) {
  const items: DetailItem[] = [
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
  return (
    <Stack spacing={2} data-testid="charge-created">
      <Alert severity={NOTICES[notice].severity} data-notice={notice}>
        {NOTICES[notice].text}
      </Alert>
      <DetailList items={items} />
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
        <Button variant="text" onClick={onReset}>
          New payment
        </Button>
      </Stack>
    </Stack>
  );
}
