import ConstructionIcon from '@mui/icons-material/Construction';
import { Box, Card, CardContent, Stack, Typography } from '@mui/material';
import type { ReactNode } from 'react';

interface PageProps {
  title: string;
  actions?: ReactNode;
  children: ReactNode;
}

/** The frame of a screen: its title (and optional actions) above the content. */
export function Page({ title, actions, children }: PageProps) {
  return (
    <Box component="section" aria-label={title}>
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', mb: 2, gap: 2 }}>
        <Typography variant="h5" component="h1">
          {title}
        </Typography>
        {actions}
      </Stack>
      {children}
    </Box>
  );
}

export const NOT_AVAILABLE_TEXT = 'This screen is not available yet.';

/** Honest placeholder for screens a later release builds. */
export function NotAvailableCard({ details }: { details?: string }) {
  return (
    <Card data-testid="not-available">
      <CardContent>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
          <ConstructionIcon color="action" />
          <Box>
            <Typography>{NOT_AVAILABLE_TEXT}</Typography>
            {details && (
              <Typography variant="body2" color="text.secondary">
                {details}
              </Typography>
            )}
          </Box>
        </Stack>
      </CardContent>
    </Card>
  );
}

/** A page that only says it is not available yet. */
export function NotAvailablePage({ title, details }: { title: string; details?: string }) {
  return (
    <Page title={title}>
      <NotAvailableCard {...(details ? { details } : {})} />
    </Page>
  );
}
