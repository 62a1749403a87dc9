import AccountBalanceWalletIcon from '@mui/icons-material/AccountBalanceWallet';
import { Button, Skeleton } from '@mui/material';
import { formatUsd } from '@pm/money';
import { Link as RouterLink } from 'react-router';
import { useMyAccount } from '../useMyAccount.ts';

/** The balance in US dollars, or a placeholder while the account loads. */
export function BalanceText() {
  const { data } = useMyAccount();
  if (!data) return <Skeleton variant="text" width={56} sx={{ display: 'inline-block' }} />;
  return <span data-testid="balance">{formatUsd(data.balanceC)}</span>;
}

/** Desktop top bar: the balance opens the add-funds dialog. */
export function BalanceButton({ onClick }: { onClick: () => void }) {
  return (
    <Button
      variant="outlined"
      startIcon={<AccountBalanceWalletIcon />}
      onClick={onClick}
      aria-label="Balance: add funds"
      sx={{ borderRadius: 5, px: 2 }}
    >
      <BalanceText />
    </Button>
  );
}

/** Mobile top bar: the balance links to the add-funds page. */
export function BalanceLink() {
  return (
    <Button
      component={RouterLink}
      to="/add-funds"
      color="inherit"
      startIcon={<AccountBalanceWalletIcon />}
      aria-label="Balance: add funds"
      sx={{ fontWeight: 700, whiteSpace: 'nowrap' }}
    >
      <BalanceText />
    </Button>
  );
}
