import { Card, Tab, Tabs, Typography } from '@mui/material';
import { useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useApi, useEnvironment, useSession } from '../../../app/context.tsx';
import { Page } from '../../../components/ui/Page.tsx';
import { createApiClient } from '../../../lib/api/transport.ts';
import { createAdminClient } from '../adminClient.ts';
import { AdminContext, type AdminState, useLoadedUser } from '../adminContext.tsx';
import { AuditTab } from '../components/AuditTab.tsx';
import { LeaseInfoTab } from '../components/LeaseInfoTab.tsx';
import { PricingTab } from '../components/PricingTab.tsx';
import { TransactionInfoTab } from '../components/TransactionInfoTab.tsx';
import { UserBalanceTab } from '../components/UserBalanceTab.tsx';
import { UserInfoTab } from '../components/UserInfoTab.tsx';
import { UserPaymentsTab } from '../components/UserPaymentsTab.tsx';
import type { UserTarget } from '../queries.ts';
import { ADMIN_TABS, adminTabIndex, adminTabSlug } from '../tabs.ts';

/** Rules §2's five tabs, then the audit trail and the price tables (labels in tabs.ts's order). */
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
  const [searchParams, setSearchParams] = useSearchParams();
  // The tab lives in the address (?tab=audit): a reload or a shared link opens it, Back returns.
  const tab = adminTabIndex(searchParams.get('tab'));
  const [target, setTarget] = useState<UserTarget | null>(null);
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
  const state: AdminState = useMemo(() => ({ client, target, setTarget }), [client, target]);
  const Body = TAB_BODIES[tab] ?? UserInfoTab;
  const selectTab = (index: number) =>
    setSearchParams((params) => {
      params.set('tab', adminTabSlug(index));
      return params;
    });

  return (
    <AdminContext.Provider value={state}>
      <Page title="Admin">
        <Card sx={{ mb: 2 }}>
          <Tabs
            value={tab}
            onChange={(_, v: number) => selectTab(v)}
            variant="scrollable"
            // On a phone the strip overflows: arrows show that more sections follow.
            scrollButtons="auto"
            allowScrollButtonsMobile
            aria-label="Admin sections"
          >
            {ADMIN_TABS.map(({ label, slug }) => (
              <Tab key={slug} label={label} />
            ))}
          </Tabs>
        </Card>
        <LoadedUserLine />
        <Body />
      </Page>
    </AdminContext.Provider>
  );
}

/** Which customer the tabs act on, above every tab. */
function LoadedUserLine() {
  const { user } = useLoadedUser();
  if (!user) return null;
  return (
    <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }} data-testid="admin-loaded-user">
      Working on {user.email ?? user.userId}
    </Typography>
  );
}
