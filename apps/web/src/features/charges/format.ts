/** How the charge page shows amounts: crypto exactly as the server sent it, dollars from cents. */
import { CURRENCIES, type CurrencyId } from '@pm/contracts';
import { formatUsd } from '@pm/money';

/** The currency's name as the add-funds selector shows it: BTC, LTC, USDT TRC20. */
export function currencyLabel(id: CurrencyId): string {
  return CURRENCIES.find((c) => c.id === id)?.label ?? id.toUpperCase();
}

/** The ticker a crypto amount is written with: BTC, LTC, USDT. */
export function currencyUnit(id: CurrencyId): string {
  return id === 'trc20usdt' ? 'USDT' : id.toUpperCase();
}

/** "0.25000000 LTC": the exact decimal string, never through a float. */
export function formatCrypto(amount: string, currency: CurrencyId): string {
  return `${amount} ${currencyUnit(currency)}`;
}

const usdGrouped = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** Cents per whole coin as "$65,432.10 per BTC" (thousands grouped: rates run to five digits). */
export function formatRate(rateC: number, currency: CurrencyId): string {
  // Cents below 2^53 divide by 100 to the nearest representable value; Intl rounds to 2 decimals.
  return `${usdGrouped.format(rateC / 100)} per ${currencyUnit(currency)}`;
}

/** The bonus a charge earns: amountUsd times the percent, rounded to the cent (rules §9). */
export function bonusCents(amountUsdC: number, percent: number): number {
  return Math.round((amountUsdC * percent) / 100);
}

/** "None", or "5% ($1.00)". */
export function formatBonus(amountUsdC: number, percent: number): string {
  return percent === 0 ? 'None' : `${percent}% (${formatUsd(bonusCents(amountUsdC, percent))})`;
}
