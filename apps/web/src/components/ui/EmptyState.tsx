import { Box, Typography } from '@mui/material';
import type { ReactNode } from 'react';

/** A centred message where a list has nothing to show. */
export function EmptyState({ children, testId }: { children: ReactNode; testId?: string }) {
  return (
    <Box data-testid={testId} sx={{ py: 5, px: 2, textAlign: 'center' }}>
      <Typography color="text.secondary">{children}</Typography>
    </Box>
  );
}
