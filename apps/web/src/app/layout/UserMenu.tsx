import AddIcon from '@mui/icons-material/Add';
import AdminPanelSettingsIcon from '@mui/icons-material/AdminPanelSettings';
import GavelIcon from '@mui/icons-material/Gavel';
import KeyIcon from '@mui/icons-material/Key';
import LogoutIcon from '@mui/icons-material/Logout';
import PersonAddIcon from '@mui/icons-material/PersonAdd';
import PolicyIcon from '@mui/icons-material/Policy';
import { Divider, ListItemIcon, Menu, MenuItem } from '@mui/material';
import { isStaff } from '@pm/contracts';
import { useNavigate } from 'react-router';
import { useMyAccount } from '../../features/account/useMyAccount.ts';
import { useSession } from '../context.tsx';
import { useDialogs } from '../dialogs.tsx';

/**
 * Desktop user menu (rules §2): email, Add Funds, Referral, Terms, Privacy, Change Password, Logout.
 * Staff also get Admin (to /bigadmin) before Logout: nothing else leads them there.
 */
export function UserMenu({ anchorEl, onClose }: { anchorEl: HTMLElement | null; onClose: () => void }) {
  const { data: account } = useMyAccount();
  const dialogs = useDialogs();
  const session = useSession();
  const navigate = useNavigate();
  const then = (action: () => void) => () => {
    onClose();
    action();
  };
  return (
    <Menu
      anchorEl={anchorEl}
      open={anchorEl !== null}
      onClose={onClose}
      anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
      transformOrigin={{ vertical: 'top', horizontal: 'right' }}
    >
      <MenuItem disabled data-testid="menu-email">
        {account?.email ?? '…'}
      </MenuItem>
      <Divider />
      <MenuItem onClick={then(dialogs.openAddFunds)}>
        <ListItemIcon>
          <AddIcon fontSize="small" />
        </ListItemIcon>
        Add Funds
      </MenuItem>
      <MenuItem onClick={then(() => navigate('/referral'))}>
        <ListItemIcon>
          <PersonAddIcon fontSize="small" />
        </ListItemIcon>
        Referral
      </MenuItem>
      <MenuItem onClick={then(() => navigate('/terms'))}>
        <ListItemIcon>
          <GavelIcon fontSize="small" />
        </ListItemIcon>
        Terms and Conditions
      </MenuItem>
      <MenuItem onClick={then(() => navigate('/privacy'))}>
        <ListItemIcon>
          <PolicyIcon fontSize="small" />
        </ListItemIcon>
        Privacy Policy
      </MenuItem>
      <MenuItem onClick={then(dialogs.openChangePassword)}>
        <ListItemIcon>
          <KeyIcon fontSize="small" />
        </ListItemIcon>
        Change Password
      </MenuItem>
      {isStaff(session.getPermissions()) && (
        <MenuItem onClick={then(() => navigate('/bigadmin'))} data-testid="menu-admin">
          <ListItemIcon>
            <AdminPanelSettingsIcon fontSize="small" />
          </ListItemIcon>
          Admin
        </MenuItem>
      )}
      <Divider />
      <MenuItem onClick={then(() => void session.logout())}>
        <ListItemIcon>
          <LogoutIcon fontSize="small" />
        </ListItemIcon>
        Logout
      </MenuItem>
    </Menu>
  );
}
