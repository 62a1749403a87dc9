import { Box, Stack, Typography } from '@mui/material';
import { LinkCard } from '../../../components/ui/LinkCard.tsx';
import { placeLabel } from '../../../lib/countries.ts';

interface LeaseSummaryCardProps {
  to: string;
  testId: string;
  ip: string;
  loc: { cc: string; reg: string; city: string };
  note: string;
  /** The right column's first line, e.g. the lease type or how it ended. */
  status: string;
  /** The right column's small second line, e.g. the time left or the start. */
  detail: string;
}

/** A lease as a phone card (My Proxies, history): IP, place and note, with a status on the right. */
export function LeaseSummaryCard({ to, testId, ip, loc, note, status, detail }: LeaseSummaryCardProps) {
  return (
    <LinkCard to={to} testId={testId}>
      <Stack direction="row" spacing={1} sx={{ justifyContent: 'space-between' }}>
        <Box sx={{ minWidth: 0 }}>
          <Typography sx={{ fontFamily: 'monospace', fontWeight: 700 }}>{ip}</Typography>
          <Typography variant="body2" color="text.secondary" noWrap>
            {[placeLabel(loc), loc.cc].filter(Boolean).join(', ')}
          </Typography>
          {note && (
            <Typography variant="body2" noWrap>
              {note}
            </Typography>
          )}
        </Box>
        <Box sx={{ textAlign: 'right', flexShrink: 0 }}>
          <Typography variant="body2">{status}</Typography>
          <Typography variant="caption" color="text.secondary">
            {detail}
          </Typography>
        </Box>
      </Stack>
    </LinkCard>
  );
}
