import { Box, Card, CardActionArea, CardContent, Stack, Typography } from '@mui/material';
import type { TLeaseHistoryItem } from '@pm/contracts';
import { Link as RouterLink } from 'react-router';
import { formatDateTime } from '../../charges/format.ts';
import { placeLabel } from '../../shop/countries.ts';
import { endReasonLabel } from '../rules.ts';

/** The phone's history list: a card a lease, opening `/my/history-details/{ip}`. */
export function HistoryCards({ items }: { items: TLeaseHistoryItem[] }) {
  return (
    <Stack spacing={1.5}>
      {items.map((item) => (
        <Card key={item.leaseID} data-testid="history-card">
          <CardActionArea component={RouterLink} to={`/my/history-details/${encodeURIComponent(item.ip)}`}>
            <CardContent sx={{ py: 1.5, '&:last-child': { pb: 1.5 } }}>
              <Stack direction="row" spacing={1} sx={{ justifyContent: 'space-between' }}>
                <Box sx={{ minWidth: 0 }}>
                  <Typography sx={{ fontFamily: 'monospace', fontWeight: 700 }}>{item.ip}</Typography>
                  <Typography variant="body2" color="text.secondary" noWrap>
                    {[placeLabel(item.loc), item.loc.cc].filter(Boolean).join(', ')}
                  </Typography>
                  {item.note && (
                    <Typography variant="body2" noWrap>
                      {item.note}
                    </Typography>
                  )}
                </Box>
                <Box sx={{ textAlign: 'right', flexShrink: 0 }}>
                  <Typography variant="body2">{endReasonLabel(item.endReason)}</Typography>
                  <Typography variant="caption" color="text.secondary">
                    {formatDateTime(item.start)}
                  </Typography>
                </Box>
              </Stack>
            </CardContent>
          </CardActionArea>
        </Card>
      ))}
    </Stack>
  );
}
