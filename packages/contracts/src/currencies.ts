import { type Cents, cents } from '@pm/money';
import { z } from 'zod';

/**
 * The deposit currencies (rules §5 and 9), in the order the currency selector lists them: the id the
 * API uses, the name shown, and the minimum deposit ($5 for BTC and LTC, $10 for USDT TRC20).
 */
export const CURRENCIES = [
  { id: 'btc', label: 'BTC', minDepositC: cents(500) },
  { id: 'ltc', label: 'LTC', minDepositC: cents(500) },
  { id: 'trc20usdt', label: 'USDT TRC20', minDepositC: cents(1000) },
] as const satisfies readonly { id: string; label: string; minDepositC: Cents }[];

/** A deposit currency id: `btc`, `ltc` or `trc20usdt`. */
export type CurrencyId = (typeof CURRENCIES)[number]['id'];

export const CURRENCY_IDS = CURRENCIES.map((c) => c.id) as [CurrencyId, ...CurrencyId[]];
export const ZCurrencyId = z.enum(CURRENCY_IDS);

/** The currency the deposit form starts with (rules §9: default deposit $5, currency BTC). */
export const DEFAULT_CURRENCY: CurrencyId = 'btc';

/** Minimum deposit for a currency id; $10 for an id not in the list (rules §9: "USDT TRC20 and others"). */
export function minDepositC(id: string): Cents {
  return CURRENCIES.find((c) => c.id === id)?.minDepositC ?? cents(1000);
}
