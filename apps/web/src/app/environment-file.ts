/**
 * The environments file as the page's first script reads it (app/boot.ts): fetched, and this origin's
 * entry picked with a check of only the fields the sign-in uses. No zod here: this module is in the
 * chunk a page fetches before it goes to the sign-in host, and zod would triple that chunk. The app
 * validates the whole entry with its schema (environment.ts) before it uses anything else.
 */
import type { SignInEnvironment } from '../lib/auth/session.ts';

export const ENVIRONMENTS_PATH = '/environments.json';

export type EnvironmentsFileResult =
  | { ok: true; file: unknown; signIn: SignInEnvironment }
  | { ok: false; reason: string };

/** Fetches the environments file from the page's own origin. */
export async function fetchEnvironmentsFile(
  origin: string,
  fetchFn: typeof fetch = fetch,
  timeoutMs = 60_000,
): Promise<{ ok: true; file: unknown } | { ok: false; reason: string }> {
  try {
    const res = await fetchFn(new URL(ENVIRONMENTS_PATH, origin), {
      cache: 'no-store',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) return { ok: false, reason: `environments file answered ${res.status}` };
    return { ok: true, file: await res.json() };
  } catch (e) {
    return { ok: false, reason: `environments file could not be loaded: ${String(e)}` };
  }
}

/** The raw entry of an (unvalidated) environments file whose `origins` contain `origin`. */
export function findEnvironmentEntry(file: unknown, origin: string): Record<string, unknown> | null {
  const list = (file as { environments?: unknown } | null)?.environments;
  if (!Array.isArray(list)) return null;
  const wanted = normaliseOrigin(origin);
  const entry: unknown = list.find((e: { origins?: unknown } | null) => {
    const origins = e?.origins;
    return (
      Array.isArray(origins) && origins.some((o) => typeof o === 'string' && normaliseOrigin(o) === wanted)
    );
  });
  return entry && typeof entry === 'object' ? (entry as Record<string, unknown>) : null;
}

/** This origin's sign-in settings from the file, or why there are none. */
export function pickSignIn(file: unknown, origin: string): EnvironmentsFileResult {
  const entry = findEnvironmentEntry(file, origin);
  if (!entry) return { ok: false, reason: `no environment for ${origin}` };
  const { issuer, clientId, audience, siteUrl } = entry;
  if (!isText(issuer) || !isText(clientId) || !isText(audience) || !isText(siteUrl)) {
    return { ok: false, reason: 'environments file is malformed' };
  }
  const signIn: SignInEnvironment = { issuer, clientId, audience, siteUrl };
  return { ok: true, file, signIn };
}

const isText = (v: unknown): v is string => typeof v === 'string' && v !== '';

// Origins compare case-insensitively and without a trailing slash ("http://Localhost:80/" is not an origin,
// but configuration files are written by hand).
export function normaliseOrigin(o: string): string {
  return o.trim().replace(/\/+$/, '').toLowerCase();
}
