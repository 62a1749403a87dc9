import { Box, Tab, Tabs } from '@mui/material';
import type { TAgent } from '@pm/contracts';
import { useState } from 'react';
import { BlacklistsPanel } from '../../checks/components/CheckPanels.tsx';
import { ScorePanel } from '../../checks/components/ScorePanel.tsx';
import { SpeedTestPanel } from '../../checks/components/SpeedTestPanel.tsx';
import { AgentInfoPanel } from './AgentPanels.tsx';

const TABS = ['Info', 'Blacklists', 'IP Score', 'Speed'] as const;
type TabName = (typeof TABS)[number];

/** The proxy detail's tabs (rules §2): Info, Blacklists, IP Score, Speed. */
export function ProxyDetailTabs({ agent }: { agent: TAgent }) {
  const [tab, setTab] = useState<TabName>('Info');
  return (
    <Box>
      <Tabs
        value={tab}
        onChange={(_, next: TabName) => setTab(next)}
        variant="fullWidth"
        aria-label="Proxy details"
        sx={{
          borderBottom: 1,
          borderColor: 'divider',
          minHeight: 40,
          '& .MuiTab-root': { minHeight: 40, minWidth: 0, px: 0.5, fontSize: 13 },
        }}
      >
        {TABS.map((t) => (
          <Tab key={t} value={t} label={t} />
        ))}
      </Tabs>
      <Box role="tabpanel" aria-label={tab} sx={{ pt: 2 }}>
        {tab === 'Info' && <AgentInfoPanel agent={agent} />}
        {tab === 'Blacklists' && <BlacklistsPanel listIds={agent.blacklists.listIDs} />}
        {tab === 'IP Score' && <ScorePanel check={agent.scoreCheck} />}
        {tab === 'Speed' && <SpeedTestPanel agentId={agent.id} />}
      </Box>
    </Box>
  );
}
