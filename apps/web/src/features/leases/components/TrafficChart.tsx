import { Box, Stack, Typography, useTheme } from '@mui/material';
import type { TLeaseTrafficHour } from '@pm/contracts';
import { formatBytes } from '../../../lib/format/agent.ts';
import { formatHour } from '../../../lib/format/time.ts';
import { type Bar, hoursLabel, requestsLabel, stackedBars } from '../traffic.ts';

const WIDTH = 320;
const PANEL = 56;

/** Two small SVG panels of stacked bars, an hour each: requests (failures on top) and bytes each way. */
export function TrafficChart({ hours }: { hours: TLeaseTrafficHour[] }) {
  const theme = useTheme();
  const requests = stackedBars(
    hours,
    WIDTH,
    PANEL,
    (h) => h.reqs - h.fails,
    (h) => h.fails,
  );
  const bytes = stackedBars(
    hours,
    WIDTH,
    PANEL,
    (h) => h.inBytes,
    (h) => h.outBytes,
  );
  const maxReqs = Math.max(0, ...hours.map((h) => h.reqs));
  const maxBytes = Math.max(0, ...hours.map((h) => h.inBytes + h.outBytes));
  const label = `Hourly traffic over ${hoursLabel(hours.length)}: up to ${requestsLabel(maxReqs)} and ${formatBytes(maxBytes)} an hour`;
  return (
    <Stack spacing={0.5}>
      <Box
        component="svg"
        role="img"
        aria-label={label}
        viewBox={`0 0 ${WIDTH} ${PANEL * 2 + 20}`}
        sx={{ width: '100%', height: 'auto', display: 'block' }}
      >
        <Panel bars={requests} top={0} lower={theme.palette.primary.main} upper={theme.palette.error.main} />
        <Panel
          bars={bytes}
          top={PANEL + 20}
          lower={theme.palette.warning.main}
          upper={theme.palette.secondary.main}
        />
        <text x={0} y={PANEL + 14} fontSize={9} fill={theme.palette.text.secondary}>
          {hours[0] ? hourLabel(hours[0].hour) : ''}
        </text>
        <text x={WIDTH} y={PANEL + 14} fontSize={9} textAnchor="end" fill={theme.palette.text.secondary}>
          {hours.length > 1 ? hourLabel(hours[hours.length - 1]!.hour) : ''}
        </text>
      </Box>
      <Stack direction="row" sx={{ flexWrap: 'wrap', columnGap: 1.5, rowGap: 0.25 }}>
        <Legend color={theme.palette.primary.main} text={`Requests (max ${maxReqs}/h)`} />
        <Legend color={theme.palette.error.main} text="Failed" />
        <Legend color={theme.palette.warning.main} text="You to Proxy" />
        <Legend color={theme.palette.secondary.main} text={`Proxy to You (max ${formatBytes(maxBytes)}/h)`} />
      </Stack>
    </Stack>
  );
}

function Panel({ bars, top, lower, upper }: { bars: Bar[]; top: number; lower: string; upper: string }) {
  const base = top + PANEL;
  return (
    <g>
      <line x1={0} x2={WIDTH} y1={base} y2={base} stroke="currentColor" strokeOpacity={0.25} />
      {bars.map((b) => (
        <g key={b.x}>
          {b.lower > 0 && <rect x={b.x} width={b.width} y={base - b.lower} height={b.lower} fill={lower} />}
          {b.upper > 0 && (
            <rect x={b.x} width={b.width} y={base - b.lower - b.upper} height={b.upper} fill={upper} />
          )}
        </g>
      ))}
    </g>
  );
}

function Legend({ color, text }: { color: string; text: string }) {
  return (
    <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
      <Box sx={{ width: 10, height: 10, bgcolor: color, borderRadius: 0.5 }} />
      <Typography variant="caption" color="text.secondary">
        {text}
      </Typography>
    </Stack>
  );
}

const hourLabel = (iso: string) => formatHour(iso);
