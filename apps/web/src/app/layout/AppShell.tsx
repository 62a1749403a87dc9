import { Box, Container } from '@mui/material';
import { Suspense } from 'react';
import { Outlet } from 'react-router';
import { ConfirmEmailBanner } from '../../features/account/components/ConfirmEmailBanner.tsx';
import { TermsGate } from '../../features/terms/components/TermsGate.tsx';
import { preloadable } from '../../lib/lazyNamed.ts';
import { useIsMobile } from '../context.tsx';
import { DialogsProvider } from '../dialogs.tsx';
import { Footer } from './Footer.tsx';

// A visit loads the top bar of its layout only (docs/benchmarks.md, "Web app first load").
const desktopTopBar = preloadable(
  () => import('./DesktopTopBar.tsx'),
  (m) => m.DesktopTopBar,
);
const mobileTopBar = preloadable(
  () => import('./MobileTopBar.tsx'),
  (m) => m.MobileTopBar,
);
const DesktopTopBar = desktopTopBar.Component;
const MobileTopBar = mobileTopBar.Component;

/** Fetches the top bar of a layout ahead of the first render (router.tsx, `preloadScreen`). */
export const preloadTopBar = (isMobile: boolean): Promise<void> =>
  (isMobile ? mobileTopBar : desktopTopBar).preload();

/** The signed-in layout: top bar (desktop or mobile), the routed screen, app-wide dialogs and the Terms modal. */
export function AppShell() {
  const isMobile = useIsMobile();
  return (
    <DialogsProvider>
      <Box
        sx={{ minHeight: '100vh', bgcolor: 'background.default', display: 'flex', flexDirection: 'column' }}
      >
        <Suspense fallback={<Box sx={{ height: isMobile ? 56 : 64 }} />}>
          {isMobile ? <MobileTopBar /> : <DesktopTopBar />}
        </Suspense>
        <Container
          component="main"
          maxWidth="lg"
          sx={{ flex: 1, py: isMobile ? 2 : 4, px: isMobile ? 1.5 : 3 }}
        >
          <ConfirmEmailBanner />
          <Outlet />
        </Container>
        <Footer />
      </Box>
      <TermsGate />
    </DialogsProvider>
  );
}
