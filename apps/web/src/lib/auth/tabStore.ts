/**
 * What this tab keeps while it is away at the sign-in host (sessionStorage, JSON): the pending
 * sign-in's and the pending hand-off's state and PKCE verifier.
 */

export function keepInTab(key: string, value: unknown): void {
  sessionStorage.setItem(key, JSON.stringify(value));
}

/**
 * The object kept under `key`, its fields still to be checked; null when there is none or it does
 * not parse. `take` removes it as it is read (a state is good for one return).
 */
export function readInTab<T>(key: string, take: boolean): Partial<T> | null {
  const raw = sessionStorage.getItem(key);
  if (take) sessionStorage.removeItem(key);
  if (!raw) return null;
  try {
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === 'object' ? (value as Partial<T>) : null;
  } catch {
    return null;
  }
}
