import { Card, CardActionArea, CardContent } from '@mui/material';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';

/**
 * A phone list item: a card that is one link, opening `to`.
 * @param testId the card's data-testid
 */
export function LinkCard({ to, testId, children }: { to: string; testId: string; children: ReactNode }) {
  return (
    <Card data-testid={testId}>
      <CardActionArea component={RouterLink} to={to}>
        <CardContent sx={{ py: 1.5, '&:last-child': { pb: 1.5 } }}>{children}</CardContent>
      </CardActionArea>
    </Card>
  );
}
