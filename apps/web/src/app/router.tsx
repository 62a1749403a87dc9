import { Box, CircularProgress } from '@mui/material';
import { type ComponentType, lazy, type ReactNode, Suspense } from 'react';
import { Navigate, type RouteObject, useRoutes } from 'react-router';
import { ErrorBoundary } from '../components/ui/ErrorBoundary.tsx';
import { useEnvironment } from './context.tsx';
import { GlobalStateScreen } from './FullScreenStates.tsx';
import { AppShell } from './layout/AppShell.tsx';

function PageLoading() {
  return (
    <Box role="progressbar" aria-label="Loading" sx={{ display: 'flex', justifyContent: 'center', py: 8 }}>
      <CircularProgress />
    </Box>
  );
}

/** The global error of rules §8 for a screen that failed to load or render. */
function ScreenError() {
  return <GlobalStateScreen state="error" support={useEnvironment().support} />;
}

/**
 * A screen in its own chunk, fetched when its route is first visited, so a first visit loads the
 * shell and that one screen (docs/benchmarks.md, "Web app first load"). A chunk that fails to load
 * (the app was deployed again meanwhile) shows the global error instead of a blank page.
 */
function lazyPage<M>(load: () => Promise<M>, pick: (module: M) => ComponentType): ReactNode {
  const Page = lazy(async () => ({ default: pick(await load()) }));
  return (
    <ErrorBoundary fallback={<ScreenError />}>
      <Suspense fallback={<PageLoading />}>
        <Page />
      </Suspense>
    </ErrorBoundary>
  );
}

const shop = () => import('../features/shop/pages/ShopPage.tsx');

/**
 * Every route of rules §2. Declarative routes (not the data router): the app has no loaders or
 * actions, and the data router's code is a sixth of the first load's budget.
 */
const ROUTES: RouteObject[] = [
  {
    element: <AppShell />,
    children: [
      // `/`: the shop on desktop; phones go to `/shop` (rules §2, Routes).
      { index: true, element: lazyPage(shop, (m) => m.HomePage) },
      { path: 'shop', element: lazyPage(shop, (m) => m.ShopPage) },
      {
        path: 'shop/:id',
        element: lazyPage(
          () => import('../features/shop/pages/ProxyDetailPage.tsx'),
          (m) => m.ProxyDetailPage,
        ),
      },
      {
        path: 'static',
        element: lazyPage(
          () => import('../features/static/pages/StaticShopPage.tsx'),
          (m) => m.StaticShopPage,
        ),
      },
      {
        path: 'my',
        element: lazyPage(
          () => import('../features/leases/pages/MyProxiesPage.tsx'),
          (m) => m.MyProxiesPage,
        ),
      },
      {
        path: 'my/history',
        element: lazyPage(
          () => import('../features/history/pages/HistoryPage.tsx'),
          (m) => m.HistoryPage,
        ),
      },
      {
        path: 'my/history-details/:ip',
        element: lazyPage(
          () => import('../features/history/pages/HistoryDetailsPage.tsx'),
          (m) => m.HistoryDetailsPage,
        ),
      },
      {
        path: 'my/:id',
        element: lazyPage(
          () => import('../features/leases/pages/LeaseDetailPage.tsx'),
          (m) => m.LeaseDetailPage,
        ),
      },
      {
        path: 'payments',
        element: lazyPage(
          () => import('../features/payments/pages/PaymentsPage.tsx'),
          (m) => m.PaymentsPage,
        ),
      },
      {
        path: 'faq',
        element: lazyPage(
          () => import('../features/info/pages/FaqPage.tsx'),
          (m) => m.FaqPage,
        ),
      },
      {
        path: 'api',
        element: lazyPage(
          () => import('../features/apidocs/pages/ApiPage.tsx'),
          (m) => m.ApiPage,
        ),
      },
      {
        path: 'download',
        element: lazyPage(
          () => import('../features/downloads/pages/DownloadsPage.tsx'),
          (m) => m.DownloadsPage,
        ),
      },
      {
        path: 'charges/:transactionId',
        element: lazyPage(
          () => import('../features/charges/pages/ChargePage.tsx'),
          (m) => m.ChargePage,
        ),
      },
      {
        path: 'bigadmin',
        element: lazyPage(
          () => import('../features/admin/pages/AdminPage.tsx'),
          (m) => m.AdminPage,
        ),
      },
      {
        path: 'change-password',
        element: lazyPage(
          () => import('../features/change-password/pages/ChangePasswordPage.tsx'),
          (m) => m.ChangePasswordPage,
        ),
      },
      {
        path: 'ports',
        element: lazyPage(
          () => import('../features/ports/pages/PortsPage.tsx'),
          (m) => m.PortsPage,
        ),
      },
      {
        path: 'referral',
        element: lazyPage(
          () => import('../features/referral/pages/ReferralPage.tsx'),
          (m) => m.ReferralPage,
        ),
      },
      {
        path: 'add-funds',
        element: lazyPage(
          () => import('../features/add-funds/pages/AddFundsPage.tsx'),
          (m) => m.AddFundsPage,
        ),
      },
      {
        path: 'filter',
        element: lazyPage(
          () => import('../features/shop/pages/FilterPage.tsx'),
          (m) => m.FilterPage,
        ),
      },
      {
        path: 'confirm-purchase',
        element: lazyPage(
          () => import('../features/shop/pages/ConfirmPurchasePage.tsx'),
          (m) => m.ConfirmPurchasePage,
        ),
      },
      {
        path: 'terms',
        element: lazyPage(
          () => import('../features/info/pages/TermsPage.tsx'),
          (m) => m.TermsPage,
        ),
      },
      {
        path: 'privacy',
        element: lazyPage(
          () => import('../features/info/pages/PrivacyPage.tsx'),
          (m) => m.PrivacyPage,
        ),
      },
      // Sign-in has finished before the router starts; a stray visit goes home.
      { path: 'callback', element: <Navigate to="/" replace /> },
      {
        path: '*',
        element: lazyPage(
          () => import('../features/info/pages/NotFoundPage.tsx'),
          (m) => m.NotFoundPage,
        ),
      },
    ],
  },
];

/** The routed screens; render inside `<BrowserRouter>`. */
export function AppRoutes() {
  return useRoutes(ROUTES);
}
