import { Box, Button, Tab, Tabs } from '@mui/material';
import type { TLease } from '@pm/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../../app/context.tsx';
import { BlacklistsPanel, ScorePanel, SpeedPanel } from '../../shop/components/AgentPanels.tsx';
import { agentQuery } from '../../shop/queries.ts';
import { LeaseInfoTab } from './LeaseInfoTab.tsx';
import { PortNoAuthTab } from './PortNoAuthTab.tsx';
import { SocksAuthTab } from './SocksAuthTab.tsx';

export const LEASE_TABS = [
  'Info',
  'Socks Auth',
  'Port NoAuth',
  'Update Score',
  'Test Speed',
  'Blacklists',
] as const;
type LeaseTab = (typeof LEASE_TABS)[number];

/** The lease detail tabs (SPEC 2): the desktop sidebar and the mobile /my/{id} page. */
export function LeaseDetail({ lease }: { lease: TLease }) {
  const [tab, setTab] = useState<LeaseTab>('Info');
  return (
    <Box>
      <Tabs
        value={tab}
        onChange={(_, next: LeaseTab) => setTab(next)}
        variant="scrollable"
        allowScrollButtonsMobile
        aria-label="Lease details"
        sx={{
          borderBottom: 1,
          borderColor: 'divider',
          minHeight: 40,
          '& .MuiTab-root': { minHeight: 40, minWidth: 0, px: 1.25, fontSize: 13 },
        }}
      >
        {LEASE_TABS.map((t) => (
          <Tab key={t} value={t} label={t} />
        ))}
      </Tabs>
      <Box role="tabpanel" aria-label={tab} sx={{ pt: 2 }}>
        {tab === 'Info' && <LeaseInfoTab lease={lease} />}
        {tab === 'Socks Auth' && <SocksAuthTab socks={lease.socks} />}
        {tab === 'Port NoAuth' && <PortNoAuthTab lease={lease} />}
        {tab === 'Update Score' && <LeaseScore lease={lease} />}
        {tab === 'Test Speed' && (
          <SpeedPanel speed={lease.currentInfo.speed} action={<DisabledAction label="Test Now" />} />
        )}
        {tab === 'Blacklists' && <BlacklistsPanel listIds={lease.currentInfo.blacklists} />}
      </Box>
    </Box>
  );
}

/**
 * The agent's last score check (it comes with the agent); buying a new one comes in a later release.
 * A static agent is not in `GET /agents/{id}` (it answers 404), so a static lease asks nothing.
 */
function LeaseScore({ lease }: { lease: TLease }) {
  const api = useApi();
  const { data: agent } = useQuery({
    ...agentQuery(api, lease.agentId),
    enabled: !lease.static,
    retry: false,
  });
  return <ScorePanel check={agent?.scoreCheck ?? null} action={<DisabledAction label="Update Score" />} />;
}

function DisabledAction({ label }: { label: string }) {
  return (
    <Button variant="outlined" size="small" disabled>
      {label}
    </Button>
  );
}
