import { Box, Card, Tab, Tabs, Typography } from '@mui/material';
import { isStaff } from '@pm/contracts';
import { useCallback, useMemo, useState } from 'react';
import { useApi, useEnvironment, useSession } from '../../../app/context.tsx';
import { Page } from '../../../components/ui/Page.tsx';
import { createApiClient } from '../../../lib/api/transport.ts';
import { createAdminClient } from '../adminClient.ts';
import { AdminContext, type AdminState, type LoadedUser } from '../adminContext.tsx';
import { AuditTab } from '../components/AuditTab.tsx';
import { LeaseInfoTab } from '../components/LeaseInfoTab.tsx';
import { TransactionInfoTab } from '../components/TransactionInfoTab.tsx';
import { UserBalanceTab } from '../components/UserBalanceTab.tsx';
import { UserInfoTab } from '../components/UserInfoTab.tsx';
import { UserPaymentsTab } from '../components/UserPaymentsTab.tsx';

export const ACCESS_DENIED_TEXT = 'ACCESS DENIED';
/** SPEC 2's five tabs, then the audit trail. */
const ADMIN_TABS = [
  'User Info',
  'User Balance',
  'Lease Info',
  'Transaction Info',
  'User Payments',
  'Audit',
] as const;
const TAB_BODIES = [UserInfoTab, UserBalanceTab, LeaseInfoTab, TransactionInfoTab, UserPaymentsTab, AuditTab];

/**
 * Admin area (/bigadmin). Access needs read:users and update:accounts in the access token's
 * permissions; the API enforces the same on every admin call.
 */
export function AdminPage() {
  const session = useSession();
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
  return <AdminArea />;
}

function AdminArea() {
  const api = useApi();
  const session = useSession();
  const { issuer } = useEnvironment();
  const [tab, setTab] = useState(0);
  const [user, setUser] = useState<LoadedUser | null>(null);
  const client = useMemo(() => {
    // The identity host's admin API through the same transport: bearer token, timeout, 401 → sign-in.
    const identity = createApiClient({
      baseUrl: issuer,
      getAccessToken: () => session.getAccessToken(),
      onFailure: (action) => {
        if (action === 'sign-in') void session.handleUnauthorized();
      },
    });
    return createAdminClient({ api, identity });
  }, [api, issuer, session]);
  const updateUser = useCallback(
    (patch: Partial<Pick<LoadedUser, 'info' | 'account'>>) => setUser((u) => (u ? { ...u, ...patch } : u)),
    [],
  );
  const state: AdminState = useMemo(
    () => ({ client, user, setUser, updateUser }),
    [client, user, updateUser],
  );
  const Body = TAB_BODIES[tab] ?? UserInfoTab;

  return (
    <AdminContext.Provider value={state}>
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
        {user && (
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }} data-testid="admin-loaded-user">
            Working on {user.email ?? user.userId}
          </Typography>
        )}
        <Body />
      </Page>
    </AdminContext.Provider>
  );
}
