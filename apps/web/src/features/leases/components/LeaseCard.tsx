import type { TLease } from '@pm/contracts';
import { formatTimeLeft } from '../../../lib/format/agent.ts';
import { useNow } from '../../../lib/useNow.ts';
import { leaseTypeLabel } from '../rules.ts';
import { LeaseSummaryCard } from './LeaseSummaryCard.tsx';

/** A lease on the mobile My Proxies; opens the lease detail tabs. */
export function LeaseCard({ lease }: { lease: TLease }) {
  const now = useNow();
  const { ip, loc } = lease.currentInfo;
  const left = formatTimeLeft(lease.until, now);
  return (
    <LeaseSummaryCard
      to={`/my/${encodeURIComponent(lease.id)}`}
      testId="lease-card"
      ip={ip}
      loc={loc}
      note={lease.note}
      status={leaseTypeLabel(lease)}
      detail={left === 'Expired' ? left : `${left} left`}
    />
  );
}
