import { Button, Card, CardContent, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router';
import { Page } from '../../../components/ui/Page.tsx';

export function NotFoundPage() {
  return (
    <Page title="Page not found">
      <Card>
        <CardContent>
          <Typography sx={{ mb: 2 }}>There is no page at this address.</Typography>
          <Button variant="contained" component={RouterLink} to="/">
            Go to the shop
          </Button>
        </CardContent>
      </Card>
    </Page>
  );
}
