import { Button, Typography } from '@mui/material';
import { formatUsd } from '@pm/money';
import { MessageDialog } from '../../../components/ui/StatusDialogs.tsx';
import { SCORE_SCALES } from '../scoreReading.ts';

export const CONFIRM_SCORE_TITLE = 'Check the IP score?';

/** "$0.50 from your balance" or, for a free check, that it costs nothing. */
export function scorePriceText(priceC: number): string {
  return priceC > 0 ? `${formatUsd(priceC)}, taken from your balance when you confirm` : 'Free';
}

/**
 * Asks before a paid score check: its price from the server's quote, what it checks and who
 * answers, and that a check nobody answers is refunded. Confirm buys it; Cancel charges nothing.
 */
export function ConfirmScoreCheckDialog({
  priceC,
  ip,
  onConfirm,
  onCancel,
}: {
  priceC: number;
  ip?: string | undefined;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const providers = SCORE_SCALES.map((s) => `${s.name} (${s.label}: ${s.meaning}, ${s.range})`);
  return (
    <MessageDialog
      title={CONFIRM_SCORE_TITLE}
      onClose={onCancel}
      maxWidth="sm"
      data-testid="confirm-score-check"
      actions={
        <>
          <Button onClick={onCancel}>Cancel</Button>
          <Button variant="contained" onClick={onConfirm}>
            Confirm
          </Button>
        </>
      }
    >
      <Typography variant="body1" sx={{ mb: 1.5 }} data-testid="score-price">
        Price: <strong>{scorePriceText(priceC)}</strong>
      </Typography>
      <Typography variant="body2" sx={{ mb: 1 }}>
        Asks three providers how {ip ? `the address ${ip}` : "this proxy's address"} looks right now:
      </Typography>
      <Typography component="ul" variant="body2" sx={{ mt: 0, mb: 1, pl: 2.5 }}>
        {providers.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </Typography>
      <Typography variant="body2" sx={{ mb: 1 }}>
        It also says whether any of them sees a proxy, VPN, Tor exit, hosting address or recent abuse, and
        gives one verdict: Clean, Suspicious or Risky.
      </Typography>
      <Typography variant="body2" color="text.secondary">
        If no provider answers, the price is refunded to your balance.
      </Typography>
    </MessageDialog>
  );
}
