import { Box, Link } from '@mui/material';
import { Link as RouterLink } from 'react-router';
import type { CurrencyId } from '../amount.ts';
import { isUnderFeeThreshold, showsTransferFeeNote } from '../amount.ts';

export const POPUP_NOTE =
  "After you click Add Funds, a new tab opens with the payment provider's wallet address and QR code. Please allow pop-ups for this site.";
export const USDT_FEE_NOTE = 'For USDT TRC20, sending under $10 has a transfer fee of about $3 deducted.';

/** The explanatory texts of rules §2 "Add funds" (and the USDT TRC20 fee note of rules §5). */
export function AddFundsNotes({ currency, dollars }: { currency: CurrencyId; dollars: number | null }) {
  return (
    <Box
      component="ul"
      sx={{ m: 0, pl: 2.5, color: 'text.secondary', typography: 'body2', '& li': { mb: 0.75 } }}
    >
      <li>{POPUP_NOTE}</li>
      <li>Funds appear on your balance within minutes after your payment is confirmed.</li>
      {showsTransferFeeNote(currency) && (
        <Box
          component="li"
          data-testid="usdt-fee-note"
          sx={isUnderFeeThreshold(currency, dollars) ? { color: 'warning.dark', fontWeight: 600 } : undefined}
        >
          {USDT_FEE_NOTE}
        </Box>
      )}
      <li>
        The balance is not refundable. See the{' '}
        <Link component={RouterLink} to="/terms">
          Terms and Conditions
        </Link>
        .
      </li>
    </Box>
  );
}
