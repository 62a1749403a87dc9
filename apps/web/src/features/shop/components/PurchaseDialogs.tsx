import { Box, Button, Stack, Typography } from '@mui/material';
import { formatUsd } from '@pm/money';
import { useNavigate } from 'react-router';
import { MessageDialog, ProgressDialog, SuccessDialog } from '../../../components/ui/StatusDialogs.tsx';
import { placeLabel } from '../../../lib/countries.ts';
import { maskIp, priceFor } from '../../../lib/format/agent.ts';
import { ALREADY_HELD_TEXT } from '../../leases/heldLease.ts';
import { useHeldLease } from '../../leases/useHeldLease.ts';
import { changeLabels, FAILURE_TEXTS, type PurchaseState } from '../purchase.ts';
import type { PurchaseFlow } from '../usePurchaseFlow.ts';
import { LeaseTypeOptions } from './LeaseTypeOptions.tsx';
import { PurchaseTerms } from './PurchaseTerms.tsx';

export const PURCHASING_TEXT = 'Purchasing the proxy…';
export const SUCCESS_TITLE = 'Purchase Successful';

/**
 * Every dialog of the purchase (rules §2 and 8): confirm (desktop only; the phone has its page),
 * purchasing, success, and the failures. `withConfirm` false leaves CONFIRM to the page.
 */
export function PurchaseDialogs({ flow, withConfirm = true }: { flow: PurchaseFlow; withConfirm?: boolean }) {
  const { state } = flow;
  if (state.step === 'OFF') return null;
  if (state.step === 'CONFIRM') return withConfirm ? <ConfirmDialog flow={flow} /> : null;
  if (state.step === 'LEASING') return <ProgressDialog text={PURCHASING_TEXT} label="Purchasing" />;
  if (state.step === 'SUCCESS') {
    return (
      <SuccessDialog
        title={SUCCESS_TITLE}
        text="Your proxy is ready under My Proxies."
        onClose={flow.close}
      />
    );
  }
  return <FailureDialog state={state} flow={flow} />;
}

function ConfirmDialog({ flow }: { flow: PurchaseFlow }) {
  if (flow.state.step !== 'CONFIRM') return null;
  const { agent, exc } = flow.state.order;
  return (
    <MessageDialog
      title="Confirm Purchase"
      onClose={flow.close}
      maxWidth="sm"
      actions={
        <>
          <Button onClick={flow.close}>Cancel</Button>
          <Button variant="contained" onClick={() => flow.buy()}>
            Buy Proxy for {formatUsd(priceFor(agent, exc))}
          </Button>
        </>
      }
    >
      <Stack spacing={2}>
        <Box>
          <Typography sx={{ fontWeight: 700 }}>{maskIp(agent.ip)}</Typography>
          <Typography variant="body2" color="text.secondary">
            {[placeLabel(agent.loc), agent.loc.isp].filter(Boolean).join(' · ')}
          </Typography>
        </Box>
        <LeaseTypeOptions agent={agent} exc={exc} onChange={flow.setExc} />
        <PurchaseTerms />
      </Stack>
    </MessageDialog>
  );
}

type FailureState = Exclude<PurchaseState, { step: 'OFF' | 'CONFIRM' | 'LEASING' | 'SUCCESS' }>;

function FailureDialog({ state, flow }: { state: FailureState; flow: PurchaseFlow }) {
  const { title, text } = FAILURE_TEXTS[state.step];
  const heldLeaseId = state.step === 'ALREADY_LEASED' ? state.heldLeaseId : undefined;
  return (
    <MessageDialog
      title={title}
      // The rules' text when someone else holds it; the server's plainer one when the buyer does.
      text={heldLeaseId ? ALREADY_HELD_TEXT : text}
      onClose={flow.close}
      data-testid={`purchase-${state.step}`}
      actions={
        heldLeaseId ? (
          <HeldLeaseActions leaseId={heldLeaseId} flow={flow} />
        ) : (
          <FailureActions step={state.step} flow={flow} />
        )
      }
    >
      {state.step === 'INFO_CHANGED' && (
        <Box component="ul" sx={{ mt: 1, mb: 0, pl: 2.5 }} data-testid="changed-parameters">
          {changeLabels(state.changes).map((label) => (
            <li key={label}>
              <Typography variant="body2">{label}</Typography>
            </li>
          ))}
        </Box>
      )}
    </MessageDialog>
  );
}

/** The buyer already holds this proxy: its lease in My Proxies, or back. */
function HeldLeaseActions({ leaseId, flow }: { leaseId: string; flow: PurchaseFlow }) {
  const heldLease = useHeldLease();
  return (
    <>
      <Button onClick={flow.close}>Close</Button>
      <Button
        variant="contained"
        onClick={() => {
          flow.close();
          heldLease.open(leaseId);
        }}
      >
        Open in My Proxies
      </Button>
    </>
  );
}

function FailureActions({ step, flow }: { step: FailureState['step']; flow: PurchaseFlow }) {
  const navigate = useNavigate();
  if (step === 'TEST_FAILED') {
    return (
      <>
        <Button onClick={flow.close}>Cancel</Button>
        <Button variant="contained" onClick={flow.buyWithoutProbe}>
          Buy Anyway
        </Button>
      </>
    );
  }
  if (step === 'NOT_ENOUGH_FUNDS') {
    return (
      <>
        <Button onClick={flow.close}>Close</Button>
        <Button
          variant="contained"
          onClick={() => {
            flow.close();
            void navigate('/payments');
          }}
        >
          Add Funds
        </Button>
      </>
    );
  }
  return (
    <Button variant="contained" onClick={flow.close}>
      OK
    </Button>
  );
}
