import { Box, Container } from '@mui/material';
import { Outlet } from 'react-router';
import { TermsModal } from '../../features/terms/components/TermsModal.tsx';
import { useIsMobile } from '../context.tsx';
import { DialogsProvider } from '../dialogs.tsx';
import { DesktopTopBar } from './DesktopTopBar.tsx';
import { Footer } from './Footer.tsx';
import { MobileTopBar } from './MobileTopBar.tsx';

/** The signed-in layout: top bar (desktop or mobile), the routed screen, app-wide dialogs and the Terms modal. */
export function AppShell() {
  const isMobile = useIsMobile();
  return (
    <DialogsProvider>
      <Box
        sx={{ minHeight: '100vh', bgcolor: 'background.default', display: 'flex', flexDirection: 'column' }}
      >
        {isMobile ? <MobileTopBar /> : <DesktopTopBar />}
        <Container
          component="main"
          maxWidth="lg"
          sx={{ flex: 1, py: isMobile ? 2 : 4, px: isMobile ? 1.5 : 3 }}
        >
          <Outlet />
        </Container>
        <Footer />
      </Box>
      <TermsModal />
    </DialogsProvider>
  );
}
