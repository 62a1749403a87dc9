/**
 * Pure helpers for access tokens: the `?token=` hand-off (SPEC section 6) and reading claims for display.
 * The browser never trusts these claims for security; the API verifies every token.
 */

export const HANDOFF_PARAM = 'token';

/** Splits a page address into the hand-off token (if any) and the address without it. */
export function extractHandoffToken(href: string): { token: string | null; cleanUrl: string } {
  const url = new URL(href);
  const token = url.searchParams.get(HANDOFF_PARAM);
  if (token === null) return { token: null, cleanUrl: href };
  url.searchParams.delete(HANDOFF_PARAM);
  return { token: token.trim() || null, cleanUrl: url.pathname + url.search + url.hash };
}

/** Decodes a JWT's payload without verifying it; null for anything that is not a JWT. */
export function decodeJwtPayload(token: string): Record<string, unknown> | null {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return null;
  try {
    const b64 = parts[1].replace(/-/g, '+').replace(/_/g, '/');
    const padded = b64 + '='.repeat((4 - (b64.length % 4)) % 4);
    const bytes = Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
    const payload: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return payload !== null && typeof payload === 'object' && !Array.isArray(payload)
      ? (payload as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** The `permissions` claim of an access token (Auth0 RBAC style); empty when absent. */
export function tokenPermissions(token: string | null): string[] {
  const claim = token ? decodeJwtPayload(token)?.permissions : undefined;
  return Array.isArray(claim) ? claim.filter((p): p is string => typeof p === 'string') : [];
}

/** True when the token's `exp` lies in the past (with `skewS` seconds of slack). Tokens without `exp` never expire here. */
export function isTokenExpired(token: string, nowMs: number, skewS = 30): boolean {
  const exp = decodeJwtPayload(token)?.exp;
  return typeof exp === 'number' && exp + skewS < nowMs / 1000;
}
