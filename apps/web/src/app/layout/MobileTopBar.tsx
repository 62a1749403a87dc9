import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import MenuIcon from '@mui/icons-material/Menu';
import { AppBar, Button, IconButton, Toolbar, Typography } from '@mui/material';
import { Suspense, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { BalanceLink } from '../../features/account/components/Balance.tsx';
import { lazyNamed } from '../../lib/lazyNamed.ts';
import { mobileScreenFor } from './screens.ts';

// The side menu's code (and Material UI's drawer) loads on the first tap.
const MobileDrawer = lazyNamed(() => import('./MobileDrawer.tsx'), 'MobileDrawer');

/**
 * The Filter screen's Reset link navigates to /filter with `state.reset` set to a fresh timestamp;
 * the filter page resets its fields when it sees a new value.
 */
export const FILTER_RESET_STATE_KEY = 'reset';

/** Mobile top bar: menu or back arrow, the screen title, and the balance (or Reset on the Filter screen). */
export function MobileTopBar() {
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const [isDrawerOpen, setDrawerOpen] = useState(false);
  const [hasDrawer, setHasDrawer] = useState(false);
  const screen = mobileScreenFor(pathname);

  const handleBack = () => {
    // Go back within the app when there is history to go back to; otherwise to the parent screen.
    const idx = (window.history.state as { idx?: number } | null)?.idx ?? 0;
    if (idx > 0) void navigate(-1);
    else void navigate(screen.backTo ?? '/');
  };

  return (
    <>
      <AppBar position="sticky" color="primary" sx={{ bgcolor: 'primary.dark' }}>
        <Toolbar variant="dense" sx={{ gap: 1, minHeight: 56 }}>
          {screen.backTo ? (
            <IconButton edge="start" color="inherit" aria-label="Back" onClick={handleBack}>
              <ArrowBackIcon />
            </IconButton>
          ) : (
            <IconButton
              edge="start"
              color="inherit"
              aria-label="Open menu"
              onClick={() => {
                setHasDrawer(true);
                setDrawerOpen(true);
              }}
            >
              <MenuIcon />
            </IconButton>
          )}
          <Typography
            variant="h6"
            component="div"
            data-testid="screen-title"
            sx={{ flexGrow: 1, fontSize: 18 }}
            noWrap
          >
            {screen.title}
          </Typography>
          {screen.action === 'reset' ? (
            <Button
              color="inherit"
              onClick={() =>
                void navigate('/filter', { replace: true, state: { [FILTER_RESET_STATE_KEY]: Date.now() } })
              }
            >
              Reset
            </Button>
          ) : (
            <BalanceLink />
          )}
        </Toolbar>
      </AppBar>
      <Suspense fallback={null}>
        {hasDrawer && <MobileDrawer open={isDrawerOpen} onClose={() => setDrawerOpen(false)} />}
      </Suspense>
    </>
  );
}
