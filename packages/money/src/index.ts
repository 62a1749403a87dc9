/** Integer US cents. Branded so a float or a dollar amount cannot be passed by mistake. */
export type Cents = number & { readonly __brand: 'Cents' };

/**
 * Largest amount, balance or price anywhere (either sign for amounts): well inside Number's
 * exact-integer range. The contracts' `ZCents` and the database's CHECK constraints use this bound.
 */
export const MAX_CENTS = 1_000_000_000_00; // $1,000,000,000.00

/** Checks that `n` is a safe integer amount of cents and brands it. */
export function cents(n: number): Cents {
  if (!Number.isSafeInteger(n) || Math.abs(n) > MAX_CENTS) {
    throw new RangeError(`not an integer amount of cents: ${n}`);
  }
  return n as Cents;
}

/** Cents to a dollar string with two decimals, no symbol: 1234 -> "12.34", -5 -> "-0.05". */
export function centsToDollarString(c: number): string {
  const sign = c < 0 ? '-' : '';
  const abs = Math.abs(c);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Formats cents for display: 1234 -> "$12.34". Only the UI edge should call this. */
export function formatUsd(c: number): string {
  const s = centsToDollarString(c);
  return s.startsWith('-') ? `-$${s.slice(1)}` : `$${s}`;
}

/** Parses a user-typed dollar amount ("12", "12.3", "12.34") into cents; null when malformed. */
export function parseDollars(text: string): Cents | null {
  const m = /^\s*(\d{1,10})(?:\.(\d{1,2}))?\s*$/.exec(text);
  if (!m) return null;
  const whole = Number(m[1]);
  const frac = Number((m[2] ?? '').padEnd(2, '0'));
  return cents(whole * 100 + frac);
}
