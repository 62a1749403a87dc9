import { Box, Stack, Typography } from '@mui/material';
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
