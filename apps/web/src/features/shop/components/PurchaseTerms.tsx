import { Box } from '@mui/material';
import { AUTO_REFUND_NOTE, STATIC_REFUND_NOTE } from '../purchase.ts';

export const LEASE_DURATION_TEXT = 'The proxy is leased for 24 hours.';

/**
 * What a buyer is told before buying (rules §2, Confirm Purchase); a static proxy's buyer is told it
 * is never refunded automatically instead of the rules' auto-refund note.
 */
export function PurchaseTerms({ isStatic = false }: { isStatic?: boolean }) {
  return (
    <Box
      component="ul"
      data-testid="purchase-terms"
      sx={{ m: 0, pl: 2.5, color: 'text.secondary', typography: 'body2', '& li': { mb: 0.5 } }}
    >
      <li>{LEASE_DURATION_TEXT}</li>
      <li>The price is paid from your balance. The minimum amount to add funds is 5$.</li>
      <li>Adding funds opens the payment provider in a new tab: please allow pop-ups for this site.</li>
      <li>The balance is non-refundable.</li>
      <li data-testid="purchase-refund-note">{isStatic ? STATIC_REFUND_NOTE : AUTO_REFUND_NOTE}</li>
    </Box>
  );
}
