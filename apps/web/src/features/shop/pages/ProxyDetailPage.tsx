import { Alert, Button, Card, CardContent, Skeleton, Stack, Typography } from '@mui/material';
import type { TAgent } from '@pm/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { useApi } from '../../../app/context.tsx';
import { Page } from '../../../components/ui/Page.tsx';
import { placeLabel } from '../../../lib/countries.ts';
import { canBuyPrivate, canBuyShared, isPrivateByDefault, maskIp } from '../../../lib/format/agent.ts';
import { agentQuery } from '../../../lib/query/agents.ts';
import { LeaseTypeOptions } from '../components/LeaseTypeOptions.tsx';
import { ProxyDetailTabs } from '../components/ProxyDetailTabs.tsx';
import { AUTO_REFUND_NOTE } from '../purchase.ts';

export const PROXY_GONE_TEXT = 'This proxy is no longer available.';

/** `/shop/{id}` (mobile): the proxy's tabs, the price options and Buy Proxy, which opens Confirm Purchase. */
export function ProxyDetailPage() {
  const api = useApi();
  const { id = '' } = useParams();
  const { data: agent, isError } = useQuery(agentQuery(api, id));
  return (
    <Page title="Proxy Details">
      {isError && <Alert severity="warning">{PROXY_GONE_TEXT}</Alert>}
      {!agent && !isError && <Skeleton variant="rounded" height={320} />}
      {agent && <ProxyDetail key={agent.id} agent={agent} />}
    </Page>
  );
}

function ProxyDetail({ agent }: { agent: TAgent }) {
  const navigate = useNavigate();
  const [exc, setExc] = useState(() => isPrivateByDefault(agent));
  const canBuy = exc ? canBuyPrivate(agent) : canBuyShared(agent);
  const handleBuy = () => {
    const params = new URLSearchParams({ agent: agent.id, type: exc ? 'private' : 'shared' });
    void navigate(`/confirm-purchase?${params}`);
  };
  return (
    <Stack spacing={2}>
      <Card>
        <CardContent>
          <Typography variant="h6" component="h2" sx={{ fontFamily: 'monospace' }}>
            {maskIp(agent.ip)}
          </Typography>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
            {placeLabel(agent.loc)}
          </Typography>
          <ProxyDetailTabs agent={agent} />
        </CardContent>
      </Card>
      <LeaseTypeOptions agent={agent} exc={exc} onChange={setExc} />
      <Typography variant="body2" color="text.secondary">
        {AUTO_REFUND_NOTE}
      </Typography>
      <Button variant="contained" size="large" disabled={!canBuy} onClick={handleBuy}>
        Buy Proxy
      </Button>
    </Stack>
  );
}
