import AccountCircleIcon from '@mui/icons-material/AccountCircle';
import { AppBar, Box, IconButton, Tab, Tabs, Toolbar } from '@mui/material';
import { useState } from 'react';
import { Link as RouterLink, useLocation } from 'react-router';
import { BalanceButton } from '../../features/account/components/Balance.tsx';
import { useDialogs } from '../dialogs.tsx';
import { Brand } from './Brand.tsx';
import { activeTabFor, DESKTOP_TABS } from './navigation.ts';
import { UserMenu } from './UserMenu.tsx';

export function DesktopTopBar() {
  const { pathname } = useLocation();
  const { openAddFunds } = useDialogs();
  const [menuAnchor, setMenuAnchor] = useState<HTMLElement | null>(null);
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
          onClick={(e) => setMenuAnchor(e.currentTarget)}
          color="primary"
        >
          <AccountCircleIcon fontSize="large" />
        </IconButton>
        <UserMenu anchorEl={menuAnchor} onClose={() => setMenuAnchor(null)} />
      </Toolbar>
    </AppBar>
  );
}
