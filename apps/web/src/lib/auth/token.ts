/**
 * Pure helpers for access tokens: the `?token=` hand-off's address parameters (rules §6) and
 * reading claims for display.
 * The browser never trusts these claims for security; the API verifies every token.
 */

export const HANDOFF_PARAM = 'token';

/** The parameters of the hand-off's way back (the sign-in host adds them), and the request to start one. */
export const HANDOFF_STATE_PARAM = 'state';
export const HANDOFF_ERROR_PARAM = 'handoff_error';
export const HANDOFF_START_PARAM = 'handoff';

/** What a page address says about the `?token=` hand-off, and the address without any of it. */
export interface HandoffReturn {
  /** The one-time code of a hand-off (the spec's `token`), or null. */
  code: string | null;
  state: string | null;
  /** The sign-in host's answer when it had no signed-in user (`login_required`). */
  error: string | null;
  /** `?handoff=1`: a link asking this tab to start a hand-off. */
  start: boolean;
  cleanUrl: string;
}

/** Takes the hand-off's parameters out of a page address. */
export function extractHandoffReturn(href: string): HandoffReturn {
  const url = new URL(href);
  const p = url.searchParams;
  // `state` alone is not ours (the sign-in callback has one): only with a hand-off parameter.
  const names = [HANDOFF_PARAM, HANDOFF_STATE_PARAM, HANDOFF_ERROR_PARAM, HANDOFF_START_PARAM];
  if (![HANDOFF_PARAM, HANDOFF_ERROR_PARAM, HANDOFF_START_PARAM].some((n) => p.has(n))) {
    return { code: null, state: null, error: null, start: false, cleanUrl: href };
  }
  const read = (name: string) => p.get(name)?.trim() || null;
  const result = {
    code: read(HANDOFF_PARAM),
    state: read(HANDOFF_STATE_PARAM),
    error: read(HANDOFF_ERROR_PARAM),
    start: p.has(HANDOFF_START_PARAM),
  };
  for (const n of names) p.delete(n);
  return { ...result, cleanUrl: url.pathname + url.search + url.hash };
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
