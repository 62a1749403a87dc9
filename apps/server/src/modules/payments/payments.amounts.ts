/**
 * Exact arithmetic between crypto base units (bigint) and integer cents: no floating point
 * anywhere. Rates are integer cents per whole coin.
 */
import type { CurrencyId } from '@pm/contracts';
import { type Cents, cents, MAX_CENTS } from '@pm/money';

/** Decimal places of each currency's base unit: satoshi, litoshi, 10^-6 USDT. */
export const DECIMALS: Record<CurrencyId, number> = { btc: 8, ltc: 8, trc20usdt: 6 };

const DECIMAL = /^(\d{1,15})(?:\.(\d{1,30}))?$/;

/**
 * A price quote in dollars as a decimal string ("97123.45678") to integer cents, rounded half up;
 * null when malformed, zero, or past MAX_CENTS.
 */
export function dollarsToCents(text: string): Cents | null {
  const m = DECIMAL.exec(text.trim());
  if (!m) return null;
  const frac = (m[2] ?? '').padEnd(3, '0');
  let c = BigInt(m[1] as string) * 100n + BigInt(frac.slice(0, 2));
  if (Number(frac[2]) >= 5) c += 1n;
  if (c <= 0n || c > BigInt(MAX_CENTS)) return null;
  return cents(Number(c));
}

/** Whole coins as a decimal string to base units; null when malformed or more precise than the coin. */
export function parseCoins(text: string, decimals: number): bigint | null {
  const m = DECIMAL.exec(text.trim());
  if (!m) return null;
  const frac = m[2] ?? '';
  if (frac.length > decimals) return null;
  return BigInt(m[1] as string) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
}

/** Base units to whole coins: 51234n with 8 decimals -> "0.00051234"; trailing zeros dropped ("25"). */
export function formatCoins(base: bigint, decimals: number): string {
  const scale = 10n ** BigInt(decimals);
  const whole = base / scale;
  const frac = (base % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : `${whole}`;
}

/** What to ask for: the base units worth at least `amountC` at `rateC`, rounded up so an exact payment credits it in full. */
export function dueBaseUnits(amountC: Cents, rateC: Cents, decimals: number): bigint {
  const num = BigInt(amountC) * 10n ** BigInt(decimals);
  const rate = BigInt(rateC);
  return (num + rate - 1n) / rate;
}

/** Cents a payment of `base` units is worth at `rateC`, rounded down (never credits a fraction that did not arrive). */
export function creditCents(base: bigint, rateC: Cents, decimals: number): Cents {
  const c = (base * BigInt(rateC)) / 10n ** BigInt(decimals);
  return cents(Number(c > BigInt(MAX_CENTS) ? BigInt(MAX_CENTS) : c));
}

/** `pct` percent of `amountC`, rounded half up (rules §9: "amountUsd times bonus percent, rounded"). */
export function percentOf(amountC: Cents, pct: number): Cents {
  return cents(Math.floor((amountC * pct + 50) / 100));
}
