import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import {
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  Typography,
} from '@mui/material';
import { formatUsd } from '@pm/money';
import { useNavigate } from 'react-router';
import { useIsMobile } from '../../../app/context.tsx';
import { useDialogs } from '../../../app/dialogs.tsx';
import { PURCHASING_TEXT, SUCCESS_TITLE } from '../../shop/components/PurchaseDialogs.tsx';
import { PurchaseTerms } from '../../shop/components/PurchaseTerms.tsx';
import { STATIC_FAILURE_TEXTS, type StaticLeaseFailure } from '../rules.ts';
import type { StaticPurchase } from '../useStaticPurchase.ts';

/** The static lease's dialogs (SPEC 4): confirm, leasing, success (closes itself), the failures. */
export function StaticPurchaseDialogs({ purchase }: { purchase: StaticPurchase }) {
  const { step, agent } = purchase;
  if (step === 'OFF' || !agent) return null;
  if (step === 'CONFIRM') {
    return (
      <Dialog open onClose={purchase.close} aria-labelledby="static-confirm-title" maxWidth="sm" fullWidth>
        <DialogTitle id="static-confirm-title">Confirm Purchase</DialogTitle>
        <DialogContent>
          <Stack spacing={2}>
            <div>
              <Typography sx={{ fontWeight: 700, fontFamily: 'monospace' }}>{agent.ip}</Typography>
              <Typography variant="body2" color="text.secondary">
                {[agent.loc.city, agent.loc.isp].filter(Boolean).join(' · ')}
              </Typography>
            </div>
            <Typography variant="body2">Static proxy, private, for 24 hours.</Typography>
            <PurchaseTerms />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={purchase.close}>Cancel</Button>
          <Button variant="contained" onClick={purchase.buy}>
            Buy Proxy for {formatUsd(agent.priceC)}
          </Button>
        </DialogActions>
      </Dialog>
    );
  }
  if (step === 'LEASING') {
    return (
      <Dialog open aria-labelledby="static-leasing-title" maxWidth="xs" fullWidth>
        <DialogContent>
          <Stack spacing={2} sx={{ alignItems: 'center', py: 2 }}>
            <CircularProgress aria-label="Purchasing" />
            <Typography id="static-leasing-title">{PURCHASING_TEXT}</Typography>
          </Stack>
        </DialogContent>
      </Dialog>
    );
  }
  if (step === 'SUCCESS') {
    return (
      <Dialog open onClose={purchase.close} aria-labelledby="static-success-title" maxWidth="xs" fullWidth>
        <DialogContent>
          <Stack spacing={1.5} sx={{ alignItems: 'center', py: 2, textAlign: 'center' }}>
            <CheckCircleIcon color="success" sx={{ fontSize: 48 }} />
            <Typography id="static-success-title" variant="h6">
              {SUCCESS_TITLE}
            </Typography>
            <Typography variant="body2" color="text.secondary">
              Your static proxy is ready under My Proxies.
            </Typography>
          </Stack>
        </DialogContent>
      </Dialog>
    );
  }
  return <StaticFailureDialog failure={step} onClose={purchase.close} />;
}

function StaticFailureDialog({ failure, onClose }: { failure: StaticLeaseFailure; onClose: () => void }) {
  const isMobile = useIsMobile();
  const navigate = useNavigate();
  const { openAddFunds } = useDialogs();
  const { title, text } = STATIC_FAILURE_TEXTS[failure];
  const handleAddFunds = () => {
    onClose();
    if (isMobile) void navigate('/add-funds');
    else openAddFunds();
  };
  return (
    <Dialog
      open
      onClose={onClose}
      aria-labelledby="static-failure-title"
      maxWidth="xs"
      fullWidth
      data-testid={`static-${failure}`}
    >
      <DialogTitle id="static-failure-title">{title}</DialogTitle>
      <DialogContent>
        <Typography variant="body2">{text}</Typography>
      </DialogContent>
      <DialogActions>
        {failure === 'NOT_ENOUGH_FUNDS' ? (
          <>
            <Button onClick={onClose}>Close</Button>
            <Button variant="contained" onClick={handleAddFunds}>
              Add Funds
            </Button>
          </>
        ) : (
          <Button variant="contained" onClick={onClose}>
            OK
          </Button>
        )}
      </DialogActions>
    </Dialog>
  );
}
