import { Card, Tab, Tabs, Typography } from '@mui/material';
import { useCallback, useMemo, useState } from 'react';
import { useApi, useEnvironment, useSession } from '../../../app/context.tsx';
import { Page } from '../../../components/ui/Page.tsx';
import { createApiClient } from '../../../lib/api/transport.ts';
import { createAdminClient } from '../adminClient.ts';
import { AdminContext, type AdminState, type LoadedUser } from '../adminContext.tsx';
import { AuditTab } from '../components/AuditTab.tsx';
import { LeaseInfoTab } from '../components/LeaseInfoTab.tsx';
import { PricingTab } from '../components/PricingTab.tsx';
import { TransactionInfoTab } from '../components/TransactionInfoTab.tsx';
import { UserBalanceTab } from '../components/UserBalanceTab.tsx';
import { UserInfoTab } from '../components/UserInfoTab.tsx';
import { UserPaymentsTab } from '../components/UserPaymentsTab.tsx';

/** Rules §2's five tabs, then the audit trail and the price tables. */
const ADMIN_TABS = [
  'User Info',
  'User Balance',
  'Lease Info',
  'Transaction Info',
  'User Payments',
  'Audit',
  'Pricing',
] as const;
const TAB_BODIES = [
  UserInfoTab,
  UserBalanceTab,
  LeaseInfoTab,
  TransactionInfoTab,
  UserPaymentsTab,
  AuditTab,
  PricingTab,
];

/** The staff screens of /bigadmin (rendered only for staff). */
export function AdminArea() {
  const api = useApi();
  const session = useSession();
  const { issuer, portsApiUrl } = useEnvironment();
  const [tab, setTab] = useState(0);
  const [user, setUser] = useState<LoadedUser | null>(null);
  const client = useMemo(() => {
    // The identity host's admin API and the ports API through the same transport: bearer token,
    // timeout, 401 → sign-in; every other failure is shown by the tab (rules §8, Admin).
    const other = (baseUrl: string) =>
      createApiClient({
        baseUrl,
        getAccessToken: () => session.getAccessToken(),
        onFailure: (action) => {
          if (action === 'sign-in') void session.handleUnauthorized();
        },
      });
    return createAdminClient({ api, identity: other(issuer), ports: other(portsApiUrl) });
  }, [api, issuer, portsApiUrl, session]);
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
