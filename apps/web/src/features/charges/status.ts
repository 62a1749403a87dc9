/** What the charge page says about a charge's state, in plain words (rules §2 "Charge page", contracts' CHARGE_STATUSES). */
import type { TChargePage } from '@pm/contracts';

export type StatusTone = 'success' | 'info' | 'warning' | 'error';

export interface ChargeStatusView {
  /** Short label: Paid, No payments, Pending, Partly paid, Expired. */
  label: string;
  tone: StatusTone;
  /** One or two sentences on what happened and what to do. */
  detail: string;
}

type ChargeState = Pick<
  TChargePage,
  'status' | 'late' | 'over' | 'currency' | 'confirmationsRequired' | 'pendingCrypto'
>;

/** True for a crypto amount string that is zero ("0", "0.00000000"). */
export const isZeroCrypto = (amount: string): boolean => /^0*(\.0*)?$/.test(amount);

function waitingFor(c: ChargeState): string {
  if (c.currency === 'trc20usdt') return 'waiting for the network to confirm it';
  const n = c.confirmationsRequired;
  return `waiting for ${n} confirmation${n === 1 ? '' : 's'}`;
}

const LATE_RATE =
  'It arrived after this address expired, so it was credited at the lower of the exchange rate below and the rate when it arrived.';

/** The label, tone and explanation the charge page shows for a charge. */
export function describeCharge(c: ChargeState): ChargeStatusView {
  const alsoPending = isZeroCrypto(c.pendingCrypto)
    ? ''
    : ` Another payment has arrived and is ${waitingFor(c)}.`;
  switch (c.status) {
    case 'new':
      return {
        label: 'No payments',
        tone: 'info',
        detail: 'Waiting for your payment. Send the amount below to the address below.',
      };
    case 'pending':
      return {
        label: 'Pending',
        tone: 'info',
        detail: `Your payment has arrived and is ${waitingFor(c)}. Your balance rises once it is confirmed.`,
      };
    case 'partial':
      return {
        label: 'Partly paid',
        tone: 'warning',
        detail: c.late
          ? `Less than the requested amount arrived, after this address expired. What arrived has been credited to your balance. ${LATE_RATE}${alsoPending}`
          : `Less than the requested amount arrived. What arrived has been credited to your balance; you can send the rest to the same address before it expires.${alsoPending}`,
      };
    case 'paid': {
      const parts = ['Your payment has been received and credited to your balance.'];
      if (c.over) parts.push('More than the requested amount arrived, and all of it was credited.');
      if (c.late) parts.push(LATE_RATE);
      return { label: 'Paid', tone: 'success', detail: parts.join(' ') + alsoPending };
    }
    case 'expired':
      return {
        label: 'Expired',
        tone: 'error',
        detail:
          'This address expired without a payment. Do not send to it: start a new payment with Add Funds.',
      };
  }
}

/** The charge page polls `POST /crypto/check` until the charge is paid (rules §4 "Charge"). */
export const isPollingDone = (status: TChargePage['status']): boolean => status === 'paid';

/** The kept add-funds data of a charge is removed once it is paid or expired (rules §4 "Add funds"). */
export const isChargeClosed = (status: TChargePage['status']): boolean =>
  status === 'paid' || status === 'expired';
