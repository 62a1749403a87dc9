import { Card, CardContent } from '@mui/material';
import { Page } from '../../../components/ui/Page.tsx';
import { ChangePasswordForm } from '../components/ChangePasswordForm.tsx';

/** Mobile change-password page. */
export function ChangePasswordPage() {
  return (
    <Page title="Change Password">
      <Card>
        <CardContent>
          <ChangePasswordForm />
        </CardContent>
      </Card>
    </Page>
  );
}
