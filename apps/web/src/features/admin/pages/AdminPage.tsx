import { Box, Card, Tab, Tabs, Typography } from '@mui/material';
import { isStaff } from '@pm/contracts';
import { useState } from 'react';
import { useSession } from '../../../app/context.tsx';
import { NotAvailableCard, Page } from '../../../components/ui/Page.tsx';

export const ACCESS_DENIED_TEXT = 'ACCESS DENIED';
const ADMIN_TABS = ['User Info', 'User Balance', 'Lease Info', 'Transaction Info', 'User Payments'] as const;

/**
 * Admin area (/bigadmin). Access needs read:users and update:accounts in the access token's
 * permissions; the API enforces the same on every admin call.
 */
export function AdminPage() {
  const session = useSession();
  const [tab, setTab] = useState(0);
  if (!isStaff(session.getPermissions())) {
    return (
      <Box sx={{ py: 8, textAlign: 'center' }}>
        <Typography
          variant="h4"
          component="h1"
          color="error"
          data-testid="access-denied"
          sx={{ fontWeight: 700 }}
        >
          {ACCESS_DENIED_TEXT}
        </Typography>
      </Box>
    );
  }
  return (
    <Page title="Admin">
      <Card sx={{ mb: 2 }}>
        <Tabs
          value={tab}
          onChange={(_, v: number) => setTab(v)}
          variant="scrollable"
          // On a phone the strip overflows: arrows show that more sections follow.
          scrollButtons="auto"
          allowScrollButtonsMobile
          aria-label="Admin sections"
        >
          {ADMIN_TABS.map((label) => (
            <Tab key={label} label={label} />
          ))}
        </Tabs>
      </Card>
      <NotAvailableCard details={`${ADMIN_TABS[tab]}: coming in the admin release.`} />
    </Page>
  );
}
