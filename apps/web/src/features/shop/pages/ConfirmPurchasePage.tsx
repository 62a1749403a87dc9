import { Alert, Button, Card, CardContent, Skeleton, Stack, Typography } from '@mui/material';
import type { TAgent } from '@pm/contracts';
import { formatUsd } from '@pm/money';
import { useQuery } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { useApi } from '../../../app/context.tsx';
import { Page } from '../../../components/ui/Page.tsx';
import { countryName, placeLabel } from '../../../lib/countries.ts';
import { canBuyPrivate, canBuyShared, maskIp, priceFor } from '../../../lib/format/agent.ts';
import { agentQuery } from '../../../lib/query/agents.ts';
import { PurchaseDialogs } from '../components/PurchaseDialogs.tsx';
import { PurchaseTerms } from '../components/PurchaseTerms.tsx';
import { usePurchaseFlow } from '../usePurchaseFlow.ts';
import { PROXY_GONE_TEXT } from './ProxyDetailPage.tsx';

/**
 * `/confirm-purchase?agent=ID&type=private|shared` (mobile): what the buyer is told, Buy Proxy, then
 * the purchase dialogs; after the success dialog closes, My Proxies.
 */
export function ConfirmPurchasePage() {
  const api = useApi();
  const [params] = useSearchParams();
  const id = params.get('agent') ?? '';
  const exc = params.get('type') !== 'shared';
  const { data: agent, isError } = useQuery({ ...agentQuery(api, id), enabled: id !== '' });
  return (
    <Page title="Confirm Purchase">
      {(isError || id === '') && <Alert severity="warning">{PROXY_GONE_TEXT}</Alert>}
      {!agent && !isError && id !== '' && <Skeleton variant="rounded" height={280} />}
      {agent && <ConfirmPurchase agent={agent} exc={exc} />}
    </Page>
  );
}

function ConfirmPurchase({ agent, exc }: { agent: TAgent; exc: boolean }) {
  const navigate = useNavigate();
  const handleDone = useCallback(() => void navigate('/my'), [navigate]);
  const flow = usePurchaseFlow(handleDone);
  const canBuy = exc ? canBuyPrivate(agent) : canBuyShared(agent);
  return (
    <Card>
      <CardContent>
        <Stack spacing={2}>
          <div>
            <Typography sx={{ fontFamily: 'monospace', fontWeight: 700 }}>{maskIp(agent.ip)}</Typography>
            <Typography variant="body2" color="text.secondary">
              {[placeLabel(agent.loc), countryName(agent.loc.cc)].filter(Boolean).join(', ')}
            </Typography>
          </div>
          <Typography data-testid="confirm-type">
            {exc ? 'Private' : 'Shared'} proxy: <b>{formatUsd(priceFor(agent, exc))}</b>
          </Typography>
          <PurchaseTerms />
          <Button
            variant="contained"
            size="large"
            disabled={!canBuy || flow.state.step !== 'OFF'}
            onClick={() => flow.buy({ agent, exc })}
          >
            Buy Proxy
          </Button>
        </Stack>
      </CardContent>
      <PurchaseDialogs flow={flow} withConfirm={false} />
    </Card>
  );
}
