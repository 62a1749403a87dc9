import { createBrowserRouter, Navigate } from 'react-router';
import { NotAvailablePage } from '../components/ui/Page.tsx';
import { AddFundsPage } from '../features/add-funds/pages/AddFundsPage.tsx';
import { AdminPage } from '../features/admin/pages/AdminPage.tsx';
import { ChangePasswordPage } from '../features/change-password/pages/ChangePasswordPage.tsx';
import { NotFoundPage } from '../features/info/pages/NotFoundPage.tsx';
import { PrivacyPage } from '../features/info/pages/PrivacyPage.tsx';
import { TermsPage } from '../features/info/pages/TermsPage.tsx';
import { ReferralPage } from '../features/referral/pages/ReferralPage.tsx';
import { ShopPage } from '../features/shop/pages/ShopPage.tsx';
import { useIsMobile } from './context.tsx';
import { AppShell } from './layout/AppShell.tsx';

/** `/`: the shop on desktop; phones go to `/shop` (SPEC section 2, Routes). */
function HomeRoute() {
  return useIsMobile() ? <Navigate to="/shop" replace /> : <ShopPage />;
}

// Screens that later releases build show an honest placeholder inside the normal layout.
const later = (title: string) => <NotAvailablePage title={title} />;

/** Every route of SPEC section 2. */
export function createAppRouter() {
  return createBrowserRouter([
    {
      element: <AppShell />,
      children: [
        { index: true, element: <HomeRoute /> },
        { path: 'shop', element: <ShopPage /> },
        { path: 'shop/:id', element: later('Proxy Details') },
        { path: 'my', element: later('My Proxies') },
        { path: 'my/history', element: later('Lease History') },
        { path: 'my/history-details/:ip', element: later('History Details') },
        { path: 'my/:id', element: later('Proxy Details') },
        { path: 'payments', element: later('Payments') },
        { path: 'faq', element: later('FAQ') },
        { path: 'api', element: later('API') },
        { path: 'download', element: later('Downloads') },
        { path: 'charges/:transactionId', element: later('Payment') },
        { path: 'bigadmin', element: <AdminPage /> },
        { path: 'change-password', element: <ChangePasswordPage /> },
        { path: 'referral', element: <ReferralPage /> },
        { path: 'add-funds', element: <AddFundsPage /> },
        { path: 'filter', element: later('Filter') },
        { path: 'confirm-purchase', element: later('Confirm Purchase') },
        { path: 'terms', element: <TermsPage /> },
        { path: 'privacy', element: <PrivacyPage /> },
        // Sign-in has finished before the router starts; a stray visit goes home.
        { path: 'callback', element: <Navigate to="/" replace /> },
        { path: '*', element: <NotFoundPage /> },
      ],
    },
  ]);
}
