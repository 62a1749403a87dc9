import { Alert, Card, CardContent, Skeleton, Typography } from '@mui/material';
import { useLocation, useNavigate, useParams } from 'react-router';
import { Page } from '../../../components/ui/Page.tsx';
import { LeaseDetail } from '../components/LeaseDetail.tsx';
import { LeaseLifecycleButtons } from '../components/LeaseLifecycleButtons.tsx';
import { ALREADY_HELD_NOTICE, isHeldLeaseState } from '../heldLease.ts';
import { useActiveLeases } from '../useActiveLeases.ts';

export const LEASE_GONE_TEXT = 'This lease is not active any more.';

/** `/my/{id}` (mobile): one lease's tabs (rules §2). */
export function LeaseDetailPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { data: leases } = useActiveLeases();
  const lease = leases?.find((l) => l.id === id);
  const isAlreadyHeld = isHeldLeaseState(useLocation().state);
  return (
    <Page title="Proxy Details">
      {isAlreadyHeld && lease && (
        <Alert severity="info" data-testid="already-held" sx={{ mb: 2 }}>
          {ALREADY_HELD_NOTICE}
        </Alert>
      )}
      {!leases && <Skeleton variant="rounded" height={320} />}
      {leases && !lease && <Alert severity="info">{LEASE_GONE_TEXT}</Alert>}
      {lease && (
        <Card>
          <CardContent>
            <Typography variant="h6" component="h2" sx={{ fontFamily: 'monospace', mb: 1 }}>
              {lease.currentInfo.ip}
            </Typography>
            <LeaseLifecycleButtons lease={lease} onRefunded={() => void navigate('/my')} />
            <LeaseDetail lease={lease} />
          </CardContent>
        </Card>
      )}
    </Page>
  );
}
