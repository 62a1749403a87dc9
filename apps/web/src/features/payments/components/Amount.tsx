import { Box } from '@mui/material';
import { formatUsd } from '@pm/money';

/** A ledger amount in dollars: credits green with a plus, debits as they are. */
export function Amount({ cents }: { cents: number }) {
  return (
    <Box component="span" sx={{ color: cents > 0 ? 'success.main' : undefined, whiteSpace: 'nowrap' }}>
      {cents > 0 ? `+${formatUsd(cents)}` : formatUsd(cents)}
    </Box>
  );
}
