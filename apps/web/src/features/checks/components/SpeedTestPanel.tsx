import { Box, Button, CircularProgress, Stack, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../../app/context.tsx';
import { formatMbps } from '../../../lib/format/agent.ts';
import { formatDateTime } from '../../../lib/format/time.ts';
import { useNow } from '../../../lib/useNow.ts';
import { useSpeedTestMutation } from '../mutations.ts';
import { speedCheckQuery } from '../queries.ts';
import { retestText, SPEED_FAILED_TEXT, speedViewOf } from '../rules.ts';
import { NOT_TESTED_TEXT } from './CheckPanels.tsx';

/**
 * The speed panel (rules §2, 4): the last test through the proxy in Mbps with its time, or 'Speed
 * could not be tested' with the retest time; Test Now asks the gateway for a new test (at most one
 * per proxy every 6 minutes) and the panel follows the job until it is done.
 */
export function SpeedTestPanel({ agentId }: { agentId: string }) {
  const api = useApi();
  const now = useNow(5000);
  const { data, isError } = useQuery({ ...speedCheckQuery(api, agentId), retry: false });
  const test = useSpeedTestMutation(agentId);
  const [rejectedUntil, setRejectedUntil] = useState<string | null>(null);
  const view = speedViewOf(isError ? null : data, now, rejectedUntil);
  const testNow = (enabled: boolean) => (
    <Button
      variant="outlined"
      size="small"
      disabled={!enabled || test.isPending}
      onClick={() =>
        test.mutate(undefined, {
          onSuccess: (o) => setRejectedUntil('rejectedUntil' in o ? o.rejectedUntil : null),
        })
      }
    >
      Test Now
    </Button>
  );

  if (view.kind === 'loadingExisting' || view.kind === 'checking') {
    return (
      <Stack spacing={1} sx={{ py: 2, alignItems: 'center' }} data-testid="speed-checking">
        <CircularProgress size={24} />
        <Typography variant="body2" color="text.secondary">
          {view.kind === 'checking' ? 'Testing speed through the proxy…' : 'Loading…'}
        </Typography>
      </Stack>
    );
  }
  if (view.kind === 'notFound') {
    return (
      <Box sx={{ py: 2, textAlign: 'center' }}>
        <Typography>{NOT_TESTED_TEXT}</Typography>
        <Box sx={{ mt: 1.5 }}>{testNow(true)}</Box>
      </Box>
    );
  }
  if (view.kind === 'failed') {
    return (
      <Box sx={{ py: 2, textAlign: 'center' }} data-testid="speed-failed">
        <Typography>{SPEED_FAILED_TEXT}</Typography>
        {!view.canRetest && (
          <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5 }}>
            {retestText(view.retestAt)}
          </Typography>
        )}
        <Box sx={{ mt: 1.5 }}>{testNow(view.canRetest)}</Box>
      </Box>
    );
  }
  return (
    <Stack spacing={1} data-testid="speed">
      <Typography variant="h6">{formatMbps(view.bps)}</Typography>
      <Typography variant="caption" color="text.secondary">
        Tested {formatDateTime(view.checkTime)}
        {!view.canRetest && ` · ${retestText(view.retestAt)}`}
      </Typography>
      <Box>{testNow(view.canRetest)}</Box>
    </Stack>
  );
}
