/** Add-funds form rules (rules §5, "Add funds amount"); the currency list is the contracts' one. */
import { type CurrencyId, MAX_DEPOSIT_C, minDepositC } from '@pm/contracts';
import { type Cents, parseDollars } from '@pm/money';

export { CURRENCIES, type CurrencyId, DEFAULT_CURRENCY } from '@pm/contracts';

/** Below this the amount field shows its error state (the button is already disabled below the minimum). */
export const AMOUNT_ERROR_BELOW_DOLLARS = 2;

/** USDT TRC20 transfers under this many dollars lose about $3 to the transfer fee (rules §5 and 9). */
export const USDT_FEE_BELOW_DOLLARS = 10;

/** Minimum deposit in dollars: $5 for BTC and LTC, $10 for USDT TRC20 (and any other currency). */
export function minimumDollars(currency: string): number {
  return minDepositC(currency) / 100;
}

/** Largest single top-up in dollars. */
export const MAXIMUM_DOLLARS = MAX_DEPOSIT_C / 100;

/** The amount the form resets to when the currency changes: the currency's minimum ($5 BTC/LTC, $10 USDT). */
export const defaultDollars = minimumDollars;

/** The amount field's text for a currency's default amount. */
export const defaultAmountText = (currency: string): string => String(defaultDollars(currency));

export interface AmountCheck {
  /** The typed amount in dollars; null when it is not a number. */
  dollars: number | null;
  /** The amount to send, integer cents; null when it is not a dollar amount with at most 2 decimals. */
  amountC: Cents | null;
  /** The input shows an error: not a dollar amount, below $2, or above the largest top-up. */
  hasInputError: boolean;
  /** Above the largest single top-up. */
  isAboveMaximum: boolean;
  /** The Add Funds button is enabled. */
  canSubmit: boolean;
  minimumDollars: number;
}

/** Checks the typed amount against the currency's minimum (and the largest top-up). */
export function checkAmount(text: string, currency: string): AmountCheck {
  const trimmed = text.trim();
  const n = trimmed === '' ? Number.NaN : Number(trimmed);
  const dollars = Number.isFinite(n) ? n : null;
  const amountC = dollars === null ? null : parseDollars(trimmed);
  const min = minimumDollars(currency);
  const isAboveMaximum = amountC !== null && amountC > MAX_DEPOSIT_C;
  return {
    dollars,
    amountC,
    hasInputError:
      dollars === null || amountC === null || dollars < AMOUNT_ERROR_BELOW_DOLLARS || isAboveMaximum,
    isAboveMaximum,
    canSubmit: amountC !== null && amountC >= minDepositC(currency) && !isAboveMaximum,
    minimumDollars: min,
  };
}

/** The note on the transfer fee shows for USDT TRC20 (rules §5: about $3 deducted under $10). */
export function showsTransferFeeNote(currency: CurrencyId): boolean {
  return currency === 'trc20usdt';
}

/** The note is a warning (not just a note) while the typed amount is under $10. */
export function isUnderFeeThreshold(currency: CurrencyId, dollars: number | null): boolean {
  return showsTransferFeeNote(currency) && dollars !== null && dollars < USDT_FEE_BELOW_DOLLARS;
}
