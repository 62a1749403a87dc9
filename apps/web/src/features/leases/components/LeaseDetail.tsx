import { Box, Tab, Tabs } from '@mui/material';
import type { TLease } from '@pm/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../../app/context.tsx';
import { agentQuery } from '../../../lib/query/agents.ts';
import { BlacklistsPanel, SpeedPanel } from '../../checks/components/CheckPanels.tsx';
import { ScorePanel } from '../../checks/components/ScorePanel.tsx';
import { SpeedTestPanel } from '../../checks/components/SpeedTestPanel.tsx';
import { UpdateScoreButton } from '../../checks/components/UpdateScoreButton.tsx';
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

/** The lease detail tabs (rules §2): the desktop sidebar and the mobile /my/{id} page. */
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
        {tab === 'Test Speed' &&
          (lease.static ? (
            <SpeedPanel speed={lease.currentInfo.speed} />
          ) : (
            <SpeedTestPanel agentId={lease.agentId} />
          ))}
        {tab === 'Blacklists' && <LeaseBlacklists lease={lease} />}
      </Box>
    </Box>
  );
}

/**
 * The leased agent as the shop shows it now (its score check and blacklists come with it). A static
 * agent is not in `GET /agents/{id}` (it answers 404), so a static lease asks nothing.
 */
function useLeasedAgent(lease: TLease) {
  const api = useApi();
  return useQuery({ ...agentQuery(api, lease.agentId), enabled: !lease.static, retry: false }).data;
}

/** The agent's last score check and Update Score, which buys a new one. */
function LeaseScore({ lease }: { lease: TLease }) {
  const agent = useLeasedAgent(lease);
  return (
    <ScorePanel
      check={agent?.scoreCheck ?? null}
      action={
        lease.static ? undefined : <UpdateScoreButton agentId={lease.agentId} ip={lease.currentInfo.ip} />
      }
    />
  );
}

/** The lists the agent's address is on now (the lease's own copy for a static lease). */
function LeaseBlacklists({ lease }: { lease: TLease }) {
  const agent = useLeasedAgent(lease);
  return <BlacklistsPanel listIds={agent?.blacklists.listIDs ?? lease.currentInfo.blacklists} />;
}
