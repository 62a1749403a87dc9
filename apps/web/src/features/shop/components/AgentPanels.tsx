import WarningAmberIcon from '@mui/icons-material/WarningAmber';
import { Box, Chip, List, ListItem, ListItemText, Stack, Typography } from '@mui/material';
import type { TAgent, TScoreCheck, TSpeed } from '@pm/contracts';
import type { ReactNode } from 'react';
import { DetailList } from '../../../components/ui/DetailList.tsx';
import { useNow } from '../../../lib/useNow.ts';
import { countryName } from '../countries.ts';
import { activityLabel, blacklistNames, formatDuration, formatMbps, formatScore, maskIp } from '../format.ts';

export const NO_BLACKLIST_TEXT = 'No blacklist records';
export const NO_SCORE_TEXT = 'No score check yet';
export const NOT_TESTED_TEXT = 'Not tested yet';

/** The proxy detail's Info tab (SPEC 2): Domain or IP, place, ISP, IP Address, Uptime, Activity. */
export function AgentInfoPanel({ agent }: { agent: TAgent }) {
  const now = useNow();
  const ip = maskIp(agent.ip);
  return (
    <DetailList
      testId="agent-info"
      items={[
        // The host name's hidden first label arrives as underscores too, and is shown the same way.
        { label: 'Domain or IP', value: maskIp(agent.host) || ip },
        { label: 'Country', value: countryName(agent.loc.cc) },
        { label: 'City', value: agent.loc.city },
        { label: 'State', value: agent.loc.reg },
        { label: 'Zip', value: agent.loc.zip },
        { label: 'Isp', value: agent.loc.isp },
        { label: 'IP Address', value: ip },
        { label: 'Uptime', value: formatDuration(agent.firstSeen, now) },
        { label: 'Activity', value: activityLabel(agent.actv) },
        { label: 'Probe Activity', value: activityLabel(agent.probeActv) },
      ]}
    />
  );
}

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

const PROVIDERS = [
  { label: 'G', status: 'status1', score: 'score1' },
  { label: 'I', status: 'status2', score: 'score2' },
  { label: 'M', status: 'status3', score: 'score3' },
] as const;

const WARNINGS = ['proxy', 'tor', 'vpn', 'hosting', 'abuse'] as const;

/**
 * The IP score of the last check: providers G (GetIPIntel), I (IPQualityScore) and M (MaxMind
 * minFraud) with their scores (0-100, higher is riskier) and the warnings; a provider that did not
 * answer shows its status.
 */
export function ScorePanel({ check, action }: { check: TScoreCheck | null; action?: ReactNode }) {
  if (!check) {
    return <PanelMessage action={action}>{NO_SCORE_TEXT}</PanelMessage>;
  }
  const warnings = WARNINGS.filter((w) => check.warnings[w]);
  return (
    <Stack spacing={1.5} data-testid="score-check">
      <DetailList
        items={PROVIDERS.map((p) => ({
          label: p.label,
          value:
            check.score[p.status] === 'ok'
              ? formatScore(check.score[p.score])
              : 'Not available (provider error)',
        }))}
      />
      <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap' }}>
        {warnings.length === 0 && <Typography variant="body2">No warnings</Typography>}
        {warnings.map((w) => (
          <Chip key={w} size="small" color="warning" label={w} />
        ))}
      </Stack>
      <Typography variant="caption" color="text.secondary">
        Checked {new Date(check.time).toLocaleString()}
      </Typography>
      {action && <Box>{action}</Box>}
    </Stack>
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
        Tested {new Date(speed.checkTime).toLocaleString()}
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
