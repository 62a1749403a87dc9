import { Box, Button, Stack, Typography } from '@mui/material';
import type { TAgent } from '@pm/contracts';
import { formatUsd } from '@pm/money';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../../app/context.tsx';
import { placeLabel } from '../../../lib/countries.ts';
import {
  canBuyPrivate,
  canBuyShared,
  isPrivateByDefault,
  maskIp,
  priceFor,
} from '../../../lib/format/agent.ts';
import { agentQuery } from '../../../lib/query/agents.ts';
import { LeaseTypeOptions } from './LeaseTypeOptions.tsx';
import { ProxyDetailTabs } from './ProxyDetailTabs.tsx';

/** The selected proxy in the desktop sidebar: its tabs, the price options and Buy Proxy. */
export function SelectedProxy({ row, onBuy }: { row: TAgent; onBuy: (agent: TAgent, exc: boolean) => void }) {
  const api = useApi();
  // The row is shown at once; the detail call brings the latest price and properties (and is what a
  // price or parameter change reloads).
  const { data, isError } = useQuery({ ...agentQuery(api, row.id), placeholderData: row });
  const agent = data ?? row;
  const [exc, setExc] = useState(() => isPrivateByDefault(agent));
  const canBuy = exc ? canBuyPrivate(agent) : canBuyShared(agent);
  return (
    <Stack spacing={2}>
      <Box>
        <Typography variant="h6" component="h2" sx={{ fontFamily: 'monospace' }}>
          {maskIp(agent.ip)}
        </Typography>
        <Typography variant="body2" color="text.secondary">
          {placeLabel(agent.loc)}
        </Typography>
      </Box>
      <ProxyDetailTabs agent={agent} />
      {isError ? (
        <Typography color="error" variant="body2">
          This proxy is no longer available.
        </Typography>
      ) : (
        <>
          <LeaseTypeOptions agent={agent} exc={exc} onChange={setExc} />
          <Button variant="contained" size="large" disabled={!canBuy} onClick={() => onBuy(agent, exc)}>
            Buy Proxy for {formatUsd(priceFor(agent, exc))}
          </Button>
        </>
      )}
    </Stack>
  );
}
