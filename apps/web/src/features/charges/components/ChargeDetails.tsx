import { Alert, Box, Stack, Typography } from '@mui/material';
import { CHARGE_POLL_MS, type TChargePage } from '@pm/contracts';
import { formatUsd } from '@pm/money';
import { useIsMobile } from '../../../app/context.tsx';
import { type DetailItem, DetailList } from '../../../components/ui/DetailList.tsx';
import { formatDateTime } from '../../../lib/format/time.ts';
import { currencyLabel, formatBonus, formatCrypto, formatRate } from '../format.ts';
import { isZeroCrypto } from '../status.ts';
import { ChargeQrCode } from './ChargeQrCode.tsx';
import { ChargeStatusBanner } from './ChargeStatusBanner.tsx';
import { CopyableValue } from './CopyableValue.tsx';

export const WALLET_WARNING =
  'After pasting the address into your wallet, be sure it is the same as the address on this site.';
export const USDT_WATCH_NOTE = 'USDT TRC20 addresses are watched for 40 minutes only.';

/** What to send and where, with the status, the QR code and the charge's figures. */
export function ChargeDetails({ charge }: { charge: TChargePage }) {
  const isMobile = useIsMobile();
  const isOpen = charge.status !== 'paid' && charge.status !== 'expired';
  return (
    <Stack spacing={2}>
      <ChargeStatusBanner charge={charge} />
      <Box
        sx={{
          display: 'flex',
          flexDirection: isMobile ? 'column' : 'row',
          alignItems: isMobile ? 'center' : 'flex-start',
          gap: 3,
        }}
      >
        <ChargeQrCode value={charge.paymentUri} size={isMobile ? 200 : 220} />
        <Stack spacing={2} sx={{ flex: 1, minWidth: 0, width: '100%' }}>
          <DetailList testId="charge-details" items={detailItems(charge)} />
          <Alert severity="warning" data-testid="wallet-warning">
            {WALLET_WARNING}
          </Alert>
          {isOpen && (
            <Typography variant="body2" color="text.secondary">
              Send exactly the amount shown. This page checks for your payment every {CHARGE_POLL_MS / 1000}{' '}
              seconds; your balance rises once the payment is confirmed.
              {charge.currency === 'trc20usdt' ? ` ${USDT_WATCH_NOTE}` : ''}
            </Typography>
          )}
        </Stack>
      </Box>
    </Stack>
  );
}

function detailItems(c: TChargePage): DetailItem[] {
  const items: DetailItem[] = [
    { label: 'Currency', value: currencyLabel(c.currency) },
    {
      label: 'Address',
      value: <CopyableValue value={c.address} copyLabel="Copy address" testId="charge-address" />,
    },
    {
      label: 'Amount',
      value: (
        <CopyableValue
          value={formatCrypto(c.amountCrypto, c.currency)}
          copyLabel="Copy amount"
          testId="charge-amount"
        />
      ),
    },
    { label: 'USD amount', value: <span data-testid="charge-usd">{formatUsd(c.amountUsd)}</span> },
    { label: 'Exchange rate', value: formatRate(c.exchangeRate, c.currency) },
    { label: 'Bonus', value: formatBonus(c.amountUsd, c.bonusType) },
    { label: 'Date', value: formatDateTime(c.date) },
    { label: 'Expires', value: formatDateTime(c.expiresAt) },
  ];
  if (!isZeroCrypto(c.receivedCrypto)) {
    items.push({ label: 'Received', value: formatCrypto(c.receivedCrypto, c.currency) });
  }
  if (!isZeroCrypto(c.pendingCrypto)) {
    items.push({ label: 'Awaiting confirmation', value: formatCrypto(c.pendingCrypto, c.currency) });
  }
  if (c.creditedUsd > 0 || c.bonusUsd > 0) {
    const bonus = c.bonusUsd > 0 ? ` + ${formatUsd(c.bonusUsd)} bonus` : '';
    items.push({
      label: 'Credited',
      value: <span data-testid="charge-credited">{`${formatUsd(c.creditedUsd)}${bonus}`}</span>,
    });
  }
  return items;
}
