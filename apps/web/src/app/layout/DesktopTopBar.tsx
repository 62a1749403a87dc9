import AccountCircleIcon from '@mui/icons-material/AccountCircle';
import { AppBar, Box, IconButton, Tab, Tabs, Toolbar } from '@mui/material';
import { Suspense, useState } from 'react';
import { Link as RouterLink, useLocation } from 'react-router';
import { BalanceButton } from '../../features/account/components/Balance.tsx';
import { lazyNamed } from '../../lib/lazyNamed.ts';
import { useDialogs } from '../dialogs.tsx';
import { Brand } from './Brand.tsx';
import { activeTabFor, DESKTOP_TABS } from './navigation.ts';

// The menu's code (and Material UI's popover) loads on the first click.
const UserMenu = lazyNamed(() => import('./UserMenu.tsx'), 'UserMenu');

export function DesktopTopBar() {
  const { pathname } = useLocation();
  const { openAddFunds } = useDialogs();
  const [menuAnchor, setMenuAnchor] = useState<HTMLElement | null>(null);
  const [hasMenu, setHasMenu] = useState(false);
  return (
    <AppBar position="sticky" color="inherit" sx={{ borderBottom: 1, borderColor: 'divider' }}>
      <Toolbar sx={{ gap: 1, minHeight: 64 }}>
        <Brand />
        <Tabs
          value={activeTabFor(pathname)}
          aria-label="Main navigation"
          sx={{ alignSelf: 'stretch', '& .MuiTabs-flexContainer': { height: '100%' } }}
        >
          {DESKTOP_TABS.map((t) => (
            <Tab
              key={t.to}
              label={t.label}
              value={t.to}
              component={RouterLink}
              to={t.to}
              sx={{ minHeight: 64 }}
            />
          ))}
        </Tabs>
        <Box sx={{ flexGrow: 1 }} />
        <BalanceButton onClick={openAddFunds} />
        <IconButton
          aria-label="Account menu"
          aria-haspopup="menu"
          onClick={(e) => {
            setHasMenu(true);
            setMenuAnchor(e.currentTarget);
          }}
          color="primary"
        >
          <AccountCircleIcon fontSize="large" />
        </IconButton>
        <Suspense fallback={null}>
          {hasMenu && <UserMenu anchorEl={menuAnchor} onClose={() => setMenuAnchor(null)} />}
        </Suspense>
      </Toolbar>
    </AppBar>
  );
}
