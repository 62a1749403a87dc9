import { Box, Link, Typography } from '@mui/material';
import { PRODUCT_NAME } from '../product.ts';

/** Attribution the location data's licences ask for (CC BY 4.0), under every signed-in screen. */
export function Footer() {
  return (
    <Box component="footer" sx={{ py: 2, px: 2, textAlign: 'center' }}>
      <Typography variant="caption" color="text.secondary">
        © {PRODUCT_NAME} ·{' '}
        <Link href="https://db-ip.com" target="_blank" rel="noopener noreferrer" color="inherit">
          IP Geolocation by DB-IP
        </Link>{' '}
        (CC BY 4.0) · ISP data from{' '}
        <Link href="https://www.routeviews.org" target="_blank" rel="noopener noreferrer" color="inherit">
          RouteViews
        </Link>{' '}
        and DB-IP · Postal code centres from{' '}
        <Link href="https://www.geonames.org" target="_blank" rel="noopener noreferrer" color="inherit">
          GeoNames
        </Link>{' '}
        (
        <Link
          href="https://creativecommons.org/licenses/by/4.0/"
          target="_blank"
          rel="noopener noreferrer"
          color="inherit"
        >
          CC BY 4.0
        </Link>
        )
      </Typography>
    </Box>
  );
}
