import HubIcon from '@mui/icons-material/Hub';
import { Stack, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router';
import { PRODUCT_NAME } from '../product.ts';

export function Brand() {
  return (
    <Stack
      direction="row"
      spacing={1}
      component={RouterLink}
      to="/"
      sx={{ alignItems: 'center', color: 'primary.dark', textDecoration: 'none', mr: 4 }}
    >
      <HubIcon color="primary" />
      <Typography variant="h6" component="span" sx={{ fontWeight: 700, letterSpacing: 0.2 }}>
        {PRODUCT_NAME}
      </Typography>
    </Stack>
  );
}
