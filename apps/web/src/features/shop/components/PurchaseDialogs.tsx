import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import {
  Box,
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
import { placeLabel } from '../countries.ts';
import { maskIp, priceFor } from '../format.ts';
import { changeLabels, FAILURE_TEXTS, type PurchaseState } from '../purchase.ts';
import type { PurchaseFlow } from '../usePurchaseFlow.ts';
import { LeaseTypeOptions } from './LeaseTypeOptions.tsx';
import { PurchaseTerms } from './PurchaseTerms.tsx';

export const PURCHASING_TEXT = 'Purchasing the proxy…';
export const SUCCESS_TITLE = 'Purchase Successful';

/**
 * Every dialog of the purchase (SPEC 2 and 8): confirm (desktop only; the phone has its page),
 * purchasing, success, and the failures. `withConfirm` false leaves CONFIRM to the page.
 */
export function PurchaseDialogs({ flow, withConfirm = true }: { flow: PurchaseFlow; withConfirm?: boolean }) {
  const { state } = flow;
  if (state.step === 'OFF') return null;
  if (state.step === 'CONFIRM') return withConfirm ? <ConfirmDialog flow={flow} /> : null;
  if (state.step === 'LEASING') {
    return (
      <Dialog open aria-labelledby="purchasing-title" maxWidth="xs" fullWidth>
        <DialogContent>
          <Stack spacing={2} sx={{ alignItems: 'center', py: 2 }}>
            <CircularProgress aria-label="Purchasing" />
            <Typography id="purchasing-title">{PURCHASING_TEXT}</Typography>
          </Stack>
        </DialogContent>
      </Dialog>
    );
  }
  if (state.step === 'SUCCESS') {
    return (
      <Dialog open onClose={flow.close} aria-labelledby="purchase-success-title" maxWidth="xs" fullWidth>
        <DialogContent>
          <Stack spacing={1.5} sx={{ alignItems: 'center', py: 2, textAlign: 'center' }}>
            <CheckCircleIcon color="success" sx={{ fontSize: 48 }} />
            <Typography id="purchase-success-title" variant="h6">
              {SUCCESS_TITLE}
            </Typography>
            <Typography variant="body2" color="text.secondary">
              Your proxy is ready under My Proxies.
            </Typography>
          </Stack>
        </DialogContent>
      </Dialog>
    );
  }
  return <FailureDialog state={state} flow={flow} />;
}

function ConfirmDialog({ flow }: { flow: PurchaseFlow }) {
  if (flow.state.step !== 'CONFIRM') return null;
  const { agent, exc } = flow.state.order;
  return (
    <Dialog open onClose={flow.close} aria-labelledby="confirm-purchase-title" maxWidth="sm" fullWidth>
      <DialogTitle id="confirm-purchase-title">Confirm Purchase</DialogTitle>
      <DialogContent>
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
      </DialogContent>
      <DialogActions>
        <Button onClick={flow.close}>Cancel</Button>
        <Button variant="contained" onClick={() => flow.buy()}>
          Buy Proxy for {formatUsd(priceFor(agent, exc))}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

type FailureState = Exclude<PurchaseState, { step: 'OFF' | 'CONFIRM' | 'LEASING' | 'SUCCESS' }>;

function FailureDialog({ state, flow }: { state: FailureState; flow: PurchaseFlow }) {
  const navigate = useNavigate();
  const { title, text } = FAILURE_TEXTS[state.step];
  const titleId = 'purchase-failure-title';
  return (
    <Dialog
      open
      onClose={flow.close}
      aria-labelledby={titleId}
      maxWidth="xs"
      fullWidth
      data-testid={`purchase-${state.step}`}
    >
      <DialogTitle id={titleId}>{title}</DialogTitle>
      <DialogContent>
        <Typography variant="body2">{text}</Typography>
        {state.step === 'INFO_CHANGED' && (
          <Box component="ul" sx={{ mt: 1, mb: 0, pl: 2.5 }} data-testid="changed-parameters">
            {changeLabels(state.changes).map((label) => (
              <li key={label}>
                <Typography variant="body2">{label}</Typography>
              </li>
            ))}
          </Box>
        )}
      </DialogContent>
      <DialogActions>
        {state.step === 'TEST_FAILED' && (
          <>
            <Button onClick={flow.close}>Cancel</Button>
            <Button variant="contained" onClick={flow.buyWithoutProbe}>
              Buy Anyway
            </Button>
          </>
        )}
        {state.step === 'NOT_ENOUGH_FUNDS' && (
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
        )}
        {state.step !== 'TEST_FAILED' && state.step !== 'NOT_ENOUGH_FUNDS' && (
          <Button variant="contained" onClick={flow.close}>
            OK
          </Button>
        )}
      </DialogActions>
    </Dialog>
  );
}
