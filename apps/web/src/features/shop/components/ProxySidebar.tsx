import { Paper, Skeleton, Typography } from '@mui/material';
import type { TAgent } from '@pm/contracts';
import { Suspense } from 'react';
import { lazyNamed } from '../../../lib/lazyNamed.ts';

// The details, tabs and price options load with the first selection, not with the shop.
const SelectedProxy = lazyNamed(() => import('./SelectedProxy.tsx'), 'SelectedProxy');

export const SELECT_PROXY_TEXT = 'Select a proxy in the table to see its details.';

/** The desktop shop's sidebar: the selected proxy's details, price options and Buy Proxy. */
export function ProxySidebar({
  agent,
  onBuy,
}: {
  agent: TAgent | null;
  onBuy: (agent: TAgent, exc: boolean) => void;
}) {
  return (
    <Paper
      variant="outlined"
      sx={{ p: 2, position: 'sticky', top: 80 }}
      aria-label="Proxy details"
      component="aside"
    >
      {agent ? (
        <Suspense fallback={<Skeleton variant="rounded" height={360} />}>
          <SelectedProxy key={agent.id} row={agent} onBuy={onBuy} />
        </Suspense>
      ) : (
        <Typography color="text.secondary" sx={{ py: 4, textAlign: 'center' }}>
          {SELECT_PROXY_TEXT}
        </Typography>
      )}
    </Paper>
  );
}
