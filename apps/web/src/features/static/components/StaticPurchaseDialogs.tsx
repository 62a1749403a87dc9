import { Button, Stack, Typography } from '@mui/material';
import { formatUsd } from '@pm/money';
import { useNavigate } from 'react-router';
import { useIsMobile } from '../../../app/context.tsx';
import { useDialogs } from '../../../app/dialogs.tsx';
import { MessageDialog, ProgressDialog, SuccessDialog } from '../../../components/ui/StatusDialogs.tsx';
import { PURCHASING_TEXT, SUCCESS_TITLE } from '../../shop/components/PurchaseDialogs.tsx';
import { PurchaseTerms } from '../../shop/components/PurchaseTerms.tsx';
import { STATIC_FAILURE_TEXTS, type StaticLeaseFailure } from '../rules.ts';
import type { StaticPurchase } from '../useStaticPurchase.ts';

/** The static lease's dialogs (rules §4): confirm, leasing, success (closes itself), the failures. */
export function StaticPurchaseDialogs({ purchase }: { purchase: StaticPurchase }) {
  const { step, agent } = purchase;
  if (step === 'OFF' || !agent) return null;
  if (step === 'CONFIRM') {
    return (
      <MessageDialog
        title="Confirm Purchase"
        onClose={purchase.close}
        maxWidth="sm"
        actions={
          <>
            <Button onClick={purchase.close}>Cancel</Button>
            <Button variant="contained" onClick={purchase.buy}>
              Buy Proxy for {formatUsd(agent.priceC)}
            </Button>
          </>
        }
      >
        <Stack spacing={2}>
          <div>
            <Typography sx={{ fontWeight: 700, fontFamily: 'monospace' }}>{agent.ip}</Typography>
            <Typography variant="body2" color="text.secondary">
              {[agent.loc.city, agent.loc.isp].filter(Boolean).join(' · ')}
            </Typography>
          </div>
          <Typography variant="body2">Static proxy, private, for 24 hours.</Typography>
          <PurchaseTerms isStatic />
        </Stack>
      </MessageDialog>
    );
  }
  if (step === 'LEASING') return <ProgressDialog text={PURCHASING_TEXT} label="Purchasing" />;
  if (step === 'SUCCESS') {
    return (
      <SuccessDialog
        title={SUCCESS_TITLE}
        text="Your static proxy is ready under My Proxies."
        onClose={purchase.close}
      />
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
    <MessageDialog
      title={title}
      text={text}
      onClose={onClose}
      data-testid={`static-${failure}`}
      actions={
        failure === 'NOT_ENOUGH_FUNDS' ? (
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
        )
      }
    />
  );
}
