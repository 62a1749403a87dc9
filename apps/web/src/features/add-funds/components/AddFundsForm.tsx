import {
  Alert,
  Box,
  Button,
  InputAdornment,
  Link,
  MenuItem,
  Skeleton,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { PERMISSION_DEPOSIT } from '@pm/contracts';
import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { useMyAccount } from '../../account/useMyAccount.ts';
import { CURRENCIES, type CurrencyId, checkAmount, DEFAULT_CURRENCY, defaultDollars } from '../amount.ts';

export const UNDER_REVIEW_TITLE = 'Your account is under review';
export const UNDER_REVIEW_TEXT =
  "You can't add funds until your account is reviewed. Please allow 24 hours for the approval of a new account.";
export const PAYMENTS_NOT_AVAILABLE_TEXT = 'Crypto payments are not available yet.';

/** The add-funds content shared by the desktop dialog and the mobile page. */
export function AddFundsForm() {
  const { data: account } = useMyAccount();
  if (!account) return <Skeleton variant="rounded" height={160} />;
  if (!account.permissions.includes(PERMISSION_DEPOSIT)) {
    return (
      <Alert severity="info" data-testid="account-under-review">
        <Typography sx={{ fontWeight: 600 }}>{UNDER_REVIEW_TITLE}</Typography>
        <Typography variant="body2">{UNDER_REVIEW_TEXT}</Typography>
      </Alert>
    );
  }
  return <DepositForm />;
}

function DepositForm() {
  const [currency, setCurrency] = useState<CurrencyId>(DEFAULT_CURRENCY);
  const [amountText, setAmountText] = useState(String(defaultDollars(DEFAULT_CURRENCY)));
  const [isNoticeShown, setNoticeShown] = useState(false);
  const check = checkAmount(amountText, currency);

  const handleCurrencyChange = (next: CurrencyId) => {
    setCurrency(next);
    setAmountText(String(defaultDollars(next)));
  };

  return (
    <Stack spacing={2.5} component="form" onSubmit={(e) => e.preventDefault()} noValidate>
      <Stack direction="row" spacing={2}>
        <TextField
          label="Amount"
          value={amountText}
          onChange={(e) => setAmountText(e.target.value)}
          error={check.hasInputError}
          helperText={`Minimum $${check.minimumDollars}`}
          fullWidth
          slotProps={{
            input: { startAdornment: <InputAdornment position="start">$</InputAdornment> },
            htmlInput: { inputMode: 'decimal', 'aria-label': 'Amount in US dollars' },
          }}
        />
        <TextField
          select
          label="Currency"
          value={currency}
          onChange={(e) => handleCurrencyChange(e.target.value as CurrencyId)}
          sx={{ minWidth: 150 }}
        >
          {CURRENCIES.map((c) => (
            <MenuItem key={c.id} value={c.id}>
              {c.label}
            </MenuItem>
          ))}
        </TextField>
      </Stack>
      <Box
        component="ul"
        sx={{ m: 0, pl: 2.5, color: 'text.secondary', typography: 'body2', '& li': { mb: 0.75 } }}
      >
        <li>
          After you click Add Funds, a new tab opens with the payment provider's wallet address and QR code.
          Please allow pop-ups for this site.
        </li>
        <li>Funds appear on your balance within minutes after your payment is confirmed.</li>
        {currency === 'trc20usdt' && (
          <li>For USDT TRC20, amounts under $10 have a transfer fee of about $3 deducted.</li>
        )}
        <li>
          The balance is not refundable. See the{' '}
          <Link component={RouterLink} to="/terms">
            Terms and Conditions
          </Link>
          .
        </li>
      </Box>
      {isNoticeShown && (
        <Alert severity="warning" data-testid="payments-not-available">
          {PAYMENTS_NOT_AVAILABLE_TEXT}
        </Alert>
      )}
      <Button
        type="submit"
        variant="contained"
        size="large"
        disabled={!check.canSubmit}
        onClick={() => setNoticeShown(true)}
      >
        Add Funds
      </Button>
    </Stack>
  );
}
