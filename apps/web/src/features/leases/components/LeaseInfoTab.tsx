import { Box, Button, Divider, Stack, Typography } from '@mui/material';
import type { TLease } from '@pm/contracts';
import { Suspense, useState } from 'react';
import { DetailList } from '../../../components/ui/DetailList.tsx';
import { countryName } from '../../../lib/countries.ts';
import {
  activityLabel,
  connLabel,
  formatBytes,
  formatDuration,
  formatTimeLeft,
} from '../../../lib/format/agent.ts';
import { lazyNamed } from '../../../lib/lazyNamed.ts';
import { useNow } from '../../../lib/useNow.ts';
import { leaseSharedLabel } from '../rules.ts';
import { AutoRenewSwitch } from './AutoRenewSwitch.tsx';
import { LeaseNoteField } from './LeaseNoteField.tsx';

// The traffic chart's code loads with the first Info tab shown, not with the page.
const LeaseTraffic = lazyNamed(() => import('./LeaseTraffic.tsx'), 'LeaseTraffic');

/**
 * The lease's Info tab (rules §2): note, Lease ID, IP, Country, Show more (Hostname, City, State, Zip,
 * Isp, Shared, Connection), Uptime, Activity, the traffic totals and Automatically renew.
 */
export function LeaseInfoTab({ lease }: { lease: TLease }) {
  const now = useNow();
  const [isMoreShown, setMoreShown] = useState(false);
  const info = lease.currentInfo;
  return (
    <Stack spacing={2}>
      <LeaseNoteField lease={lease} />
      <DetailList
        testId="lease-info"
        items={[
          { label: 'Lease ID', value: lease.id },
          { label: 'IP Address', value: info.ip },
          { label: 'Country', value: countryName(info.loc.cc) },
          { label: 'Time left', value: formatTimeLeft(lease.until, now) },
        ]}
      />
      <Box>
        <Button size="small" onClick={() => setMoreShown((shown) => !shown)} sx={{ px: 0 }}>
          {isMoreShown ? 'Show less' : 'Show more'}
        </Button>
        {isMoreShown && (
          <DetailList
            testId="lease-more"
            items={[
              { label: 'Hostname', value: info.host },
              { label: 'City', value: info.loc.city },
              { label: 'State', value: info.loc.reg },
              { label: 'Zip', value: info.loc.zip },
              { label: 'Isp', value: info.loc.isp },
              { label: 'Shared', value: leaseSharedLabel(lease) },
              { label: 'Connection', value: connLabel(info.conn) },
            ]}
          />
        )}
      </Box>
      <DetailList
        items={[
          // The lease carries its agent's uptime: `GET /agents/{id}` hides static and sold-out agents.
          { label: 'Uptime', value: info.onlineSince ? formatDuration(info.onlineSince, now) : 'Offline' },
          { label: 'Activity', value: activityLabel(info.actv) },
        ]}
      />
      <Divider />
      <Typography variant="subtitle2">Totals</Typography>
      <DetailList
        testId="lease-totals"
        items={[
          { label: 'Total Requests', value: lease.stats.reqs.toLocaleString('en-US') },
          { label: 'Failed %', value: `${Math.round(lease.stats.failPct * 10) / 10}%` },
          // Wrong user names or passwords: refused before any request, so never part of Failed %.
          { label: 'Failed sign-ins', value: lease.stats.authFails.toLocaleString('en-US') },
          { label: 'You to Proxy', value: formatBytes(lease.stats.inBytes) },
          { label: 'Proxy to You', value: formatBytes(lease.stats.outBytes) },
        ]}
      />
      <Typography variant="subtitle2">Traffic by hour</Typography>
      <Suspense fallback={null}>
        <LeaseTraffic leaseId={lease.id} />
      </Suspense>
      <Divider />
      <AutoRenewSwitch lease={lease} />
    </Stack>
  );
}
