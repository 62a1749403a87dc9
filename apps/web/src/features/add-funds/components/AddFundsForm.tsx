import {
  Alert,
  Button,
  InputAdornment,
  MenuItem,
  Skeleton,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { EMAIL_NOT_CONFIRMED_MESSAGE, PERMISSION_DEPOSIT, type TAccount } from '@pm/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { useApi } from '../../../app/context.tsx';
import { CONFIRM_EMAIL_TITLE } from '../../account/emailConfirmation.ts';
import { useMyAccount } from '../../account/useMyAccount.ts';
import { chargePath, forgetOpenCharge, type OpenCharge, readOpenCharge } from '../../charges/chargeStore.ts';
import { chargeQuery } from '../../charges/queries.ts';
import { useChargeSideEffects } from '../../charges/useChargeSideEffects.ts';
import {
  CURRENCIES,
  type CurrencyId,
  checkAmount,
  DEFAULT_CURRENCY,
  defaultAmountText,
  MAXIMUM_DOLLARS,
} from '../amount.ts';
import { type ChargeNotice, chargeView, isChargeSettled } from '../keptCharge.ts';
import { useCreateChargeMutation } from '../mutations.ts';
import { closePaymentTab, openPaymentTab, sendPaymentTab } from '../paymentTab.ts';
import { AddFundsNotes } from './AddFundsNotes.tsx';
import { ChargeCreated } from './ChargeCreated.tsx';

export const UNDER_REVIEW_TITLE = 'Your account is under review';
export const UNDER_REVIEW_TEXT =
  "You can't add funds until your account is reviewed. Please allow 24 hours for the approval of a new account.";
export const PAYMENT_ERROR_TEXT = 'Payment Error: Please try again later.';

/** The add-funds content shared by the desktop dialog and the mobile page. */
export function AddFundsForm() {
  const { data: account } = useMyAccount();
  if (!account) return <Skeleton variant="rounded" height={160} />;
  // The server refuses a charge before the address is confirmed (403 emailNotConfirmed).
  if (!account.emailVerified) {
    return (
      <Alert severity="warning" data-testid="add-funds-confirm-email">
        <Typography sx={{ fontWeight: 600 }}>{CONFIRM_EMAIL_TITLE}</Typography>
        <Typography variant="body2">{EMAIL_NOT_CONFIRMED_MESSAGE}</Typography>
      </Alert>
    );
  }
  if (!account.permissions.includes(PERMISSION_DEPOSIT)) {
    return (
      <Alert severity="info" data-testid="account-under-review">
        <Typography sx={{ fontWeight: 600 }}>{UNDER_REVIEW_TITLE}</Typography>
        <Typography variant="body2">{UNDER_REVIEW_TEXT}</Typography>
      </Alert>
    );
  }
  return <DepositFlow account={account} />;
}

interface Created {
  charge: OpenCharge;
  notice: ChargeNotice;
}

/**
 * The form, or the charge it created (kept until reset, paid or expired: rules §4). The kept charge is
 * shown as the server's page of it says (keptCharge.ts); an expired or unknown one gives the form.
 */
function DepositFlow({ account }: { account: TAccount }) {
  const [created, setCreated] = useState<Created | null>(() => {
    const kept = readOpenCharge(window.localStorage, Date.now());
    return kept ? { charge: kept, notice: 'kept' } : null;
  });
  const handleReset = () => {
    forgetOpenCharge(window.localStorage);
    setCreated(null);
  };
  if (created) return <CreatedCharge created={created} onReset={handleReset} />;
  return <DepositForm account={account} onCreated={setCreated} />;
}

/** A created or kept charge, asked of the server (polled like its page) before it is called open. */
function CreatedCharge({ created, onReset }: { created: Created; onReset: () => void }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const { code } = created.charge;
  const { data: page, isError } = useQuery(chargeQuery(api, queryClient, code));
  useChargeSideEffects(code, page?.status);
  // A charge the server cannot show (an error answer) is treated as gone: the form again.
  const view = isError ? ({ kind: 'closed' } as const) : chargeView(created.notice, page, Date.now());
  const isSettled = isChargeSettled(view);
  const isClosed = view.kind === 'closed';
  useEffect(() => {
    if (isSettled) forgetOpenCharge(window.localStorage, code);
    // Expired or unknown: nothing left to pay or show, so the form again.
    if (isClosed) onReset();
  }, [isSettled, isClosed, code, onReset]);
  return <ChargeCreated charge={created.charge} view={view} onReset={onReset} />;
}

function DepositForm({ account, onCreated }: { account: TAccount; onCreated: (created: Created) => void }) {
  const [currency, setCurrency] = useState<CurrencyId>(DEFAULT_CURRENCY);
  const [amountText, setAmountText] = useState(defaultAmountText(DEFAULT_CURRENCY));
  const create = useCreateChargeMutation();
  const check = checkAmount(amountText, currency);

  const handleAmountChange = (text: string) => {
    setAmountText(text);
    create.reset();
  };
  const handleCurrencyChange = (next: CurrencyId) => {
    setCurrency(next);
    setAmountText(defaultAmountText(next));
    create.reset();
  };

  const handleSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!check.canSubmit || check.amountC === null || create.isPending) return;
    // Opened inside the click, so pop-up blockers let it through; the address comes later.
    const tab = openPaymentTab();
    create.mutate(
      { amount: check.amountC, type: currency, user_id: account.userID, user_email: account.email },
      {
        onSuccess: ({ open }) => {
          const isTabOpen = sendPaymentTab(tab, chargePath(open.code));
          onCreated({ charge: open, notice: isTabOpen ? 'opened' : 'blocked' });
        },
        onError: () => closePaymentTab(tab),
      },
    );
  };

  return (
    <Stack spacing={2.5} component="form" onSubmit={handleSubmit} noValidate>
      <Stack direction="row" spacing={2}>
        <TextField
          label="Amount"
          value={amountText}
          onChange={(e) => handleAmountChange(e.target.value)}
          error={check.hasInputError}
          helperText={
            check.isAboveMaximum ? `Maximum $${MAXIMUM_DOLLARS}` : `Minimum $${check.minimumDollars}`
          }
          fullWidth
          slotProps={{
            input: { startAdornment: <InputAdornment position="start">$</InputAdornment> },
            htmlInput: { inputMode: 'decimal', 'aria-label': 'Amount in US dollars' },
          }}
        />
        <TextField
          select
          label="Currency"
          value={currency}
          onChange={(e) => handleCurrencyChange(e.target.value as CurrencyId)}
          sx={{ minWidth: 150 }}
        >
          {CURRENCIES.map((c) => (
            <MenuItem key={c.id} value={c.id}>
              {c.label}
            </MenuItem>
          ))}
        </TextField>
      </Stack>
      <AddFundsNotes currency={currency} dollars={check.dollars} />
      {create.isError && (
        <Alert severity="error" data-testid="payment-error">
          {PAYMENT_ERROR_TEXT}
        </Alert>
      )}
      <Button type="submit" variant="contained" size="large" disabled={!check.canSubmit || create.isPending}>
        Add Funds
      </Button>
    </Stack>
  );
}
