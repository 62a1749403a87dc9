import { Card, CardContent } from '@mui/material';
import { Page } from '../../../components/ui/Page.tsx';
import { AddFundsForm } from '../components/AddFundsForm.tsx';

/** Mobile add-funds page (desktop opens the same form in a dialog). */
export function AddFundsPage() {
  return (
    <Page title="Add Funds">
      <Card>
        <CardContent>
          <AddFundsForm />
        </CardContent>
      </Card>
    </Page>
  );
}
