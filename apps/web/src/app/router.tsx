import { Box, CircularProgress } from '@mui/material';
import { type ComponentType, Suspense } from 'react';
import { matchRoutes, Navigate, type RouteObject, useRoutes } from 'react-router';
import { ErrorBoundary } from '../components/ui/ErrorBoundary.tsx';
import { MOBILE_QUERY } from '../lib/browser.ts';
import { preloadable } from '../lib/lazyNamed.ts';
import { useEnvironment } from './context.tsx';
import { GlobalStateScreen } from './FullScreenStates.tsx';
import { AppShell, preloadTopBar } from './layout/AppShell.tsx';

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
 * shell and that one screen (docs/benchmarks.md, "Web app first load"); `preloadScreen` fetches it
 * ahead of the first render. A chunk that fails to load (the app was deployed again meanwhile)
 * shows the global error instead of a blank page.
 */
function lazyPage<M>(load: () => Promise<M>, pick: (module: M) => ComponentType): ScreenRoute {
  const { Component: Page, preload } = preloadable(load, pick);
  return {
    element: (
      <ErrorBoundary fallback={<ScreenError />}>
        <Suspense fallback={<PageLoading />}>
          <Page />
        </Suspense>
      </ErrorBoundary>
    ),
    handle: { preload },
  };
}

type ScreenRoute = Pick<RouteObject, 'element' | 'handle'>;

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
      { index: true, ...lazyPage(shop, (m) => m.HomePage) },
      { path: 'shop', ...lazyPage(shop, (m) => m.ShopPage) },
      {
        path: 'shop/:id',
        ...lazyPage(
          () => import('../features/shop/pages/ProxyDetailPage.tsx'),
          (m) => m.ProxyDetailPage,
        ),
      },
      {
        path: 'static',
        ...lazyPage(
          () => import('../features/static/pages/StaticShopPage.tsx'),
          (m) => m.StaticShopPage,
        ),
      },
      {
        path: 'my',
        ...lazyPage(
          () => import('../features/leases/pages/MyProxiesPage.tsx'),
          (m) => m.MyProxiesPage,
        ),
      },
      {
        path: 'my/history',
        ...lazyPage(
          () => import('../features/history/pages/HistoryPage.tsx'),
          (m) => m.HistoryPage,
        ),
      },
      {
        path: 'my/history-details/:ip',
        ...lazyPage(
          () => import('../features/history/pages/HistoryDetailsPage.tsx'),
          (m) => m.HistoryDetailsPage,
        ),
      },
      {
        path: 'my/:id',
        ...lazyPage(
          () => import('../features/leases/pages/LeaseDetailPage.tsx'),
          (m) => m.LeaseDetailPage,
        ),
      },
      {
        path: 'payments',
        ...lazyPage(
          () => import('../features/payments/pages/PaymentsPage.tsx'),
          (m) => m.PaymentsPage,
        ),
      },
      {
        path: 'faq',
        ...lazyPage(
          () => import('../features/info/pages/FaqPage.tsx'),
          (m) => m.FaqPage,
        ),
      },
      {
        path: 'api',
        ...lazyPage(
          () => import('../features/apidocs/pages/ApiPage.tsx'),
          (m) => m.ApiPage,
        ),
      },
      {
        path: 'download',
        ...lazyPage(
          () => import('../features/downloads/pages/DownloadsPage.tsx'),
          (m) => m.DownloadsPage,
        ),
      },
      {
        path: 'charges/:transactionId',
        ...lazyPage(
          () => import('../features/charges/pages/ChargePage.tsx'),
          (m) => m.ChargePage,
        ),
      },
      {
        path: 'bigadmin',
        ...lazyPage(
          () => import('../features/admin/pages/AdminPage.tsx'),
          (m) => m.AdminPage,
        ),
      },
      {
        path: 'change-password',
        ...lazyPage(
          () => import('../features/change-password/pages/ChangePasswordPage.tsx'),
          (m) => m.ChangePasswordPage,
        ),
      },
      {
        path: 'ports',
        ...lazyPage(
          () => import('../features/ports/pages/PortsPage.tsx'),
          (m) => m.PortsPage,
        ),
      },
      {
        path: 'referral',
        ...lazyPage(
          () => import('../features/referral/pages/ReferralPage.tsx'),
          (m) => m.ReferralPage,
        ),
      },
      {
        path: 'add-funds',
        ...lazyPage(
          () => import('../features/add-funds/pages/AddFundsPage.tsx'),
          (m) => m.AddFundsPage,
        ),
      },
      {
        path: 'filter',
        ...lazyPage(
          () => import('../features/shop/pages/FilterPage.tsx'),
          (m) => m.FilterPage,
        ),
      },
      {
        path: 'confirm-purchase',
        ...lazyPage(
          () => import('../features/shop/pages/ConfirmPurchasePage.tsx'),
          (m) => m.ConfirmPurchasePage,
        ),
      },
      {
        path: 'terms',
        ...lazyPage(
          () => import('../features/info/pages/TermsPage.tsx'),
          (m) => m.TermsPage,
        ),
      },
      {
        path: 'privacy',
        ...lazyPage(
          () => import('../features/info/pages/PrivacyPage.tsx'),
          (m) => m.PrivacyPage,
        ),
      },
      // Sign-in has finished before the router starts; a stray visit goes home.
      { path: 'callback', element: <Navigate to="/" replace /> },
      {
        path: '*',
        ...lazyPage(
          () => import('../features/info/pages/NotFoundPage.tsx'),
          (m) => m.NotFoundPage,
        ),
      },
    ],
  },
];

/**
 * Fetches the screen of `pathname` and the top bar of this viewport before the app's first render,
 * so that neither suspends (lib/lazyNamed.ts, `preloadable`). Failures are left to the render.
 */
export async function preloadScreen(pathname: string): Promise<void> {
  const leaf = matchRoutes(ROUTES, pathname)?.at(-1)?.route.handle as
    | { preload?: () => Promise<void> }
    | undefined;
  await Promise.allSettled([leaf?.preload?.(), preloadTopBar(window.matchMedia(MOBILE_QUERY).matches)]);
}

/** The routed screens; render inside `<BrowserRouter>`. */
export function AppRoutes() {
  return useRoutes(ROUTES);
}
