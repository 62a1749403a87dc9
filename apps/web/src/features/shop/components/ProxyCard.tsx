import { Box, Stack, Typography } from '@mui/material';
import type { TAgent } from '@pm/contracts';
import { formatUsd } from '@pm/money';
import { LinkCard } from '../../../components/ui/LinkCard.tsx';
import { placeLabel } from '../../../lib/countries.ts';
import { isPrivateByDefault, maskIp, newLabel, priceFor, sharedLabel } from '../../../lib/format/agent.ts';
import { CleanScore, ConnLabel } from './AgentBadges.tsx';

/** A proxy on the mobile shop; opens its detail page. */
export function ProxyCard({ agent }: { agent: TAgent }) {
  return (
    <LinkCard to={`/shop/${encodeURIComponent(agent.id)}`} testId="agent-card">
      <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center' }}>
        <CleanScore stars={agent.stars} />
        <Box sx={{ flex: 1, minWidth: 0 }}>
          <Typography sx={{ fontFamily: 'monospace', fontWeight: 700 }}>{maskIp(agent.ip)}</Typography>
          <Typography variant="body2" color="text.secondary" noWrap>
            {[placeLabel(agent.loc), agent.loc.zip].filter(Boolean).join(' ')}
          </Typography>
          <Typography variant="body2" color="text.secondary" noWrap>
            {agent.loc.isp}
          </Typography>
        </Box>
        <Box sx={{ textAlign: 'right' }}>
          <Typography sx={{ fontWeight: 700 }}>
            {formatUsd(priceFor(agent, isPrivateByDefault(agent)))}
          </Typography>
          <Typography variant="caption" component="div">
            {sharedLabel(agent.leases.count)}
          </Typography>
          <Typography variant="caption" component="div" color="text.secondary">
            <ConnLabel conn={agent.conn} dev={agent.dev} />
            {newLabel(agent) === 'Yes' ? ' · New' : ''}
          </Typography>
        </Box>
      </Stack>
    </LinkCard>
  );
}
