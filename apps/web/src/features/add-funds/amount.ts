/** Add-funds form rules (SPEC section 5, "Add funds amount"); the currency list is the contracts' one. */
import { minDepositC } from '@pm/contracts';

export { CURRENCIES, type CurrencyId, DEFAULT_CURRENCY } from '@pm/contracts';

/** Below this the amount field shows its error state (the button is already disabled below the minimum). */
export const AMOUNT_ERROR_BELOW_DOLLARS = 2;

/** Minimum deposit in dollars: $5 for BTC and LTC, $10 for USDT TRC20 (and any other currency). */
export function minimumDollars(currency: string): number {
  return minDepositC(currency) / 100;
}

/** The amount the form resets to when the currency changes: the currency's minimum. */
export const defaultDollars = minimumDollars;

export interface AmountCheck {
  /** The typed amount in dollars; null when it is not a number. */
  dollars: number | null;
  /** The input shows an error: not numeric, or below $2. */
  hasInputError: boolean;
  /** The Add Funds button is enabled. */
  canSubmit: boolean;
  minimumDollars: number;
}

/** Checks the typed amount against the currency's minimum. */
export function checkAmount(text: string, currency: string): AmountCheck {
  const trimmed = text.trim();
  const n = trimmed === '' ? Number.NaN : Number(trimmed);
  const dollars = Number.isFinite(n) ? n : null;
  const min = minimumDollars(currency);
  return {
    dollars,
    hasInputError: dollars === null || dollars < AMOUNT_ERROR_BELOW_DOLLARS,
    canSubmit: dollars !== null && dollars >= min,
    minimumDollars: min,
  };
}
