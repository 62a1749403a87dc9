/**
 * What the page's first script (main.tsx) hands the app: the environments file and the sign-in,
 * settled before the app's code (React, Material UI, the screens) is fetched. A fresh page has no
 * access token (it lives in memory only), so it goes to the sign-in host before any of that is
 * downloaded, and the app is fetched and started once per visit: when the sign-in comes back
 * (docs/benchmarks.md, "Web app first visit").
 */
import { type AuthSession, initAuth } from '../lib/auth/session.ts';
import { isInternetExplorer } from '../lib/browser.ts';
import { fetchEnvironmentsFile, pickSignIn } from './environment-file.ts';

export type Boot =
  /** Internet Explorer (its UA): told so at once, never sent to sign in. */
  | { kind: 'unsupported' }
  | { kind: 'config-error' }
  /** Signed in; `file` is the environments file, which the app validates whole before use. */
  | { kind: 'ready'; file: unknown; session: AuthSession }
  /** Sign-in could not start or finish: `offline` when the sign-in host could not be reached at all. */
  | { kind: 'failed'; file: unknown; offline: boolean };

/** The environment and the sign-in; null while the browser is being sent to the sign-in host. */
export async function boot(): Promise<Boot | null> {
  if (isInternetExplorer(navigator.userAgent)) return { kind: 'unsupported' };
  const got = await fetchEnvironmentsFile(window.location.origin);
  const picked = got.ok ? pickSignIn(got.file, window.location.origin) : got;
  if (!picked.ok) return { kind: 'config-error' };
  try {
    const auth = await initAuth(picked.signIn);
    if (auth.kind === 'redirecting') return null;
    return { kind: 'ready', file: picked.file, session: auth.session };
  } catch (e) {
    console.error('sign-in initialisation failed', e);
    // fetch() rejects with a TypeError when the sign-in host cannot be reached at all.
    return { kind: 'failed', file: picked.file, offline: e instanceof TypeError };
  }
}
