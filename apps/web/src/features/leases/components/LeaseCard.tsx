import { Box, Card, CardActionArea, CardContent, Stack, Typography } from '@mui/material';
import type { TLease } from '@pm/contracts';
import { Link as RouterLink } from 'react-router';
import { useNow } from '../../../lib/useNow.ts';
import { placeLabel } from '../../shop/countries.ts';
import { formatTimeLeft } from '../../shop/format.ts';
import { leaseTypeLabel } from '../rules.ts';

/** A lease on the mobile My Proxies; opens the lease detail tabs. */
export function LeaseCard({ lease }: { lease: TLease }) {
  const now = useNow();
  const { ip, loc } = lease.currentInfo;
  const left = formatTimeLeft(lease.until, now);
  return (
    <Card data-testid="lease-card">
      <CardActionArea component={RouterLink} to={`/my/${encodeURIComponent(lease.id)}`}>
        <CardContent sx={{ py: 1.5, '&:last-child': { pb: 1.5 } }}>
          <Stack direction="row" spacing={1} sx={{ justifyContent: 'space-between' }}>
            <Box sx={{ minWidth: 0 }}>
              <Typography sx={{ fontFamily: 'monospace', fontWeight: 700 }}>{ip}</Typography>
              <Typography variant="body2" color="text.secondary" noWrap>
                {[placeLabel(loc), loc.cc].filter(Boolean).join(', ')}
              </Typography>
              {lease.note && (
                <Typography variant="body2" noWrap>
                  {lease.note}
                </Typography>
              )}
            </Box>
            <Box sx={{ textAlign: 'right', flexShrink: 0 }}>
              <Typography variant="body2">{leaseTypeLabel(lease)}</Typography>
              <Typography variant="caption" color="text.secondary">
                {left === 'Expired' ? left : `${left} left`}
              </Typography>
            </Box>
          </Stack>
        </CardContent>
      </CardActionArea>
    </Card>
  );
}
