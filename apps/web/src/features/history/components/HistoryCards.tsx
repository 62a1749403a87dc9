import { Stack } from '@mui/material';
import type { TLeaseHistoryItem } from '@pm/contracts';
import { formatDateTime } from '../../../lib/format/time.ts';
import { LeaseSummaryCard } from '../../leases/components/LeaseSummaryCard.tsx';
import { endReasonLabel } from '../rules.ts';

/** The phone's history list: a card a lease, opening `/my/history-details/{ip}`. */
export function HistoryCards({ items }: { items: TLeaseHistoryItem[] }) {
  return (
    <Stack spacing={1.5}>
      {items.map((item) => (
        <LeaseSummaryCard
          key={item.leaseID}
          to={`/my/history-details/${encodeURIComponent(item.ip)}`}
          testId="history-card"
          ip={item.ip}
          loc={item.loc}
          note={item.note}
          status={endReasonLabel(item.endReason)}
          detail={formatDateTime(item.start)}
        />
      ))}
    </Stack>
  );
}
