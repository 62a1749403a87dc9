import { Button, Paper, Stack, Typography } from '@mui/material';
import type { TTxRecord } from '@pm/contracts';
import { formatUsd } from '@pm/money';
import { formatDateTime } from '../../../lib/format/time.ts';
import { txTypeLabel } from '../txTypes.ts';
import { Amount } from './Amount.tsx';

export const SHOW_MORE_TEXT = 'Show more payments';

/** The phone's list of transactions with a Show more payments button (rules §2 "Routes"). */
export function PaymentCards({
  records,
  hasMore,
  isLoadingMore,
  onShowMore,
}: {
  records: TTxRecord[];
  hasMore: boolean;
  isLoadingMore: boolean;
  onShowMore: () => void;
}) {
  return (
    <Stack spacing={1}>
      {records.map((r) => (
        <Paper key={r.id} variant="outlined" sx={{ p: 1.5 }} data-testid="payment-card" data-type={r.type}>
          <Stack direction="row" sx={{ justifyContent: 'space-between', alignItems: 'baseline', gap: 1 }}>
            <Typography sx={{ fontWeight: 600 }}>{txTypeLabel(r.type)}</Typography>
            <Typography sx={{ fontWeight: 600 }}>
              <Amount cents={r.amtC} />
            </Typography>
          </Stack>
          {r.memo && (
            <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
              {r.memo}
            </Typography>
          )}
          <Stack direction="row" sx={{ justifyContent: 'space-between', gap: 1, color: 'text.secondary' }}>
            <Typography variant="caption">{formatDateTime(r.time)}</Typography>
            <Typography variant="caption">Balance {formatUsd(r.balC)}</Typography>
          </Stack>
        </Paper>
      ))}
      {hasMore && (
        <Button variant="outlined" onClick={onShowMore} disabled={isLoadingMore} fullWidth>
          {SHOW_MORE_TEXT}
        </Button>
      )}
    </Stack>
  );
}
