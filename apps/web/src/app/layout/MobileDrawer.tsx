import AddIcon from '@mui/icons-material/Add';
import AdminPanelSettingsIcon from '@mui/icons-material/AdminPanelSettings';
import DnsIcon from '@mui/icons-material/Dns';
import GavelIcon from '@mui/icons-material/Gavel';
import HelpIcon from '@mui/icons-material/Help';
import KeyIcon from '@mui/icons-material/Key';
import LogoutIcon from '@mui/icons-material/Logout';
import PaymentsIcon from '@mui/icons-material/Payments';
import PolicyIcon from '@mui/icons-material/Policy';
import RouterIcon from '@mui/icons-material/Router';
import SettingsEthernetIcon from '@mui/icons-material/SettingsEthernet';
import StorefrontIcon from '@mui/icons-material/Storefront';
import {
  Box,
  Divider,
  Drawer,
  List,
  ListItem,
  ListItemButton,
  ListItemIcon,
  ListItemText,
  Typography,
} from '@mui/material';
import { isStaff } from '@pm/contracts';
import type { ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { BalanceText } from '../../features/account/components/Balance.tsx';
import { useMyAccount } from '../../features/account/useMyAccount.ts';
import { useSession } from '../context.tsx';
import { PRODUCT_NAME } from '../product.ts';

/** Mobile side menu (rules §2, "Menus and top bars"); staff also get Admin before Logout. */
export function MobileDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const navigate = useNavigate();
  const session = useSession();
  const { data: account } = useMyAccount();
  const go = (to: string) => () => {
    onClose();
    void navigate(to);
  };
  const item = (label: string, icon: ReactNode, onClick: () => void) => (
    <ListItem disablePadding>
      <ListItemButton onClick={onClick}>
        <ListItemIcon sx={{ minWidth: 40 }}>{icon}</ListItemIcon>
        <ListItemText primary={label} />
      </ListItemButton>
    </ListItem>
  );
  return (
    <Drawer open={open} onClose={onClose} slotProps={{ paper: { sx: { width: 280 } } }}>
      <Box component="nav" aria-label="Side menu" data-testid="side-menu">
        <Typography variant="h6" sx={{ px: 2, py: 1.5, fontWeight: 700, color: 'primary.dark' }}>
          {PRODUCT_NAME}
        </Typography>
        <Divider />
        <List dense>
          {item('Shop', <StorefrontIcon />, go('/shop'))}
          {item('Static Proxies', <DnsIcon />, go('/static'))}
          {item('My Proxies', <RouterIcon />, go('/my'))}
          {item('Ports', <SettingsEthernetIcon />, go('/ports'))}
          {item('Payments', <PaymentsIcon />, go('/payments'))}
          {item('FAQ', <HelpIcon />, go('/faq'))}
        </List>
        <Divider />
        <Box sx={{ px: 2, py: 1.5 }}>
          <Typography variant="body2" color="text.secondary" noWrap data-testid="drawer-email">
            {account?.email ?? '…'}
          </Typography>
          <Typography variant="subtitle1" sx={{ fontWeight: 700 }}>
            Balance: <BalanceText />
          </Typography>
        </Box>
        <List dense>
          {item('Add Funds', <AddIcon />, go('/add-funds'))}
          {item('Change Password', <KeyIcon />, go('/change-password'))}
          {isStaff(session.getPermissions()) && item('Admin', <AdminPanelSettingsIcon />, go('/bigadmin'))}
          {item('Logout', <LogoutIcon />, () => {
            onClose();
            void session.logout();
          })}
        </List>
        <Divider />
        <List dense>
          {item('Terms and Conditions', <GavelIcon />, go('/terms'))}
          {item('Privacy Policy', <PolicyIcon />, go('/privacy'))}
        </List>
      </Box>
    </Drawer>
  );
}
