/**
 * What the checks found about an agent, for every screen that shows an agent (the proxy detail, a
 * lease's detail): its blacklists and its last speed test.
 */
import WarningAmberIcon from '@mui/icons-material/WarningAmber';
import { Box, List, ListItem, ListItemText, Stack, Typography } from '@mui/material';
import type { TSpeed } from '@pm/contracts';
import type { ReactNode } from 'react';
import { blacklistNames, formatMbps } from '../../../lib/format/agent.ts';
import { formatDateTime } from '../../../lib/format/time.ts';

export const NO_BLACKLIST_TEXT = 'No blacklist records';
export const NOT_TESTED_TEXT = 'Not tested yet';

/** The blacklists an IP is on, or 'No blacklist records'. */
export function BlacklistsPanel({ listIds }: { listIds: readonly string[] }) {
  const names = blacklistNames(listIds);
  if (names.length === 0) return <PanelMessage>{NO_BLACKLIST_TEXT}</PanelMessage>;
  return (
    <List dense disablePadding data-testid="blacklists">
      {names.map((name) => (
        <ListItem key={name} disableGutters>
          <WarningAmberIcon fontSize="small" color="warning" sx={{ mr: 1 }} />
          <ListItemText primary={name} />
        </ListItem>
      ))}
    </List>
  );
}

/** The last speed test in Mbps (a static proxy's; the others use the checks' SpeedTestPanel). */
export function SpeedPanel({ speed, action }: { speed: TSpeed | null; action?: ReactNode }) {
  if (!speed) {
    return <PanelMessage action={action}>{NOT_TESTED_TEXT}</PanelMessage>;
  }
  return (
    <Stack spacing={1} data-testid="speed">
      <Typography variant="h6">{formatMbps(speed.bps)}</Typography>
      <Typography variant="caption" color="text.secondary">
        Tested {formatDateTime(speed.checkTime)}
      </Typography>
      {action}
    </Stack>
  );
}

function PanelMessage({
  children,
  detail,
  action,
}: {
  children: ReactNode;
  detail?: string;
  action?: ReactNode;
}) {
  return (
    <Box sx={{ py: 2, textAlign: 'center' }}>
      <Typography>{children}</Typography>
      {detail && (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5 }}>
          {detail}
        </Typography>
      )}
      {action && <Box sx={{ mt: 1.5 }}>{action}</Box>}
    </Box>
  );
}
