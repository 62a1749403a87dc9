import { Box, CircularProgress, Paper, Stack, Typography } from '@mui/material';
import type { ReactNode } from 'react';

interface FullScreenMessageProps {
  icon?: ReactNode;
  title?: string;
  children: ReactNode;
  testId?: string;
}

/** A centred message that replaces the whole app (offline, maintenance, errors, configuration problems). */
export function FullScreenMessage({ icon, title, children, testId }: FullScreenMessageProps) {
  return (
    <Box
      data-testid={testId}
      sx={{ minHeight: '100vh', display: 'flex', alignItems: 'center', justifyContent: 'center', p: 2 }}
    >
      <Paper
        variant="outlined"
        sx={{ maxWidth: 520, width: '100%', p: { xs: 3, sm: 5 }, textAlign: 'center' }}
      >
        <Stack spacing={2} sx={{ alignItems: 'center' }}>
          {icon && <Box sx={{ color: 'primary.main', '& svg': { fontSize: 48 } }}>{icon}</Box>}
          {title && (
            <Typography variant="h5" component="h1">
              {title}
            </Typography>
          )}
          {children}
        </Stack>
      </Paper>
    </Box>
  );
}

/** The spinner shown while the app initialises. */
export function FullScreenSpinner({ label }: { label: string }) {
  return (
    <Box
      role="progressbar"
      aria-label={label}
      data-testid="app-initialising"
      sx={{ minHeight: '100vh', display: 'flex', alignItems: 'center', justifyContent: 'center' }}
    >
      <CircularProgress />
    </Box>
  );
}
