/** The admin tabs' shared pieces: a titled section, the error line, the needs-a-user note, layout boxes. */
import { Alert, Box, Card, CardContent, Stack, Typography } from '@mui/material';
import type { ReactNode } from 'react';

/** A titled card section of a tab. */
export function Section({
  title,
  children,
  testId,
}: {
  title: string;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <Card sx={{ mb: 2 }} data-testid={testId}>
      <CardContent>
        <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 700, mb: 1.5 }}>
          {title}
        </Typography>
        {children}
      </CardContent>
    </Card>
  );
}

/** The error line under an action (nothing when there is none). */
export function ActionError({ error, testId }: { error: string | null; testId?: string }) {
  if (!error) return null;
  return (
    <Alert severity="error" sx={{ mt: 1.5 }} data-testid={testId ?? 'admin-error'}>
      {error}
    </Alert>
  );
}

/** The note shown where an action needs a loaded user. */
export function NeedsUser() {
  return (
    <Box sx={{ color: 'text.secondary', fontSize: 14, mb: 1 }} data-testid="admin-needs-user">
      Load a user in User Info first; actions stay disabled until then.
    </Box>
  );
}

/**
 * Horizontal scroll for wide tables, so a phone's page never overflows: below 760 px of card width
 * the table keeps its columns readable and scrolls inside the card instead of squeezing them.
 */
export function TableScroll({ children }: { children: ReactNode }) {
  return <Box sx={{ overflowX: 'auto', maxWidth: '100%', '& table': { minWidth: 760 } }}>{children}</Box>;
}

/** A row of fields and buttons (stacked on a phone), aligned at their tops so helper texts do not shift them. */
export function FieldRow({ children }: { children: ReactNode }) {
  return (
    <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5} sx={{ alignItems: { sm: 'flex-start' } }}>
      {children}
    </Stack>
  );
}
