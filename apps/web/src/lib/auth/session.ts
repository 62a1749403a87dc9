/**
 * Sign-in for the web app: authorization code + PKCE against the environment's issuer (oauth4webapi
 * does the protocol: discovery, the authorization response's checks, the token requests and the ID
 * token's claims), the access token kept in memory only and renewed shortly before it expires with
 * the rotating refresh token. The spec's `?token=` hand-off (rules §6) is honoured too, bound to the
 * tab that started it (handoff.ts): its parameters leave the address at once and the token it
 * brings is kept for this tab only (sessionStorage).
 */
import type { TEnvironment } from '@pm/contracts';
import { finishHandoff, startHandoff } from './handoff.ts';
import { CALLBACK_PATH, createOidcClient, type OidcClient, pendingReturnTo, type Tokens } from './oidc.ts';
import { extractHandoffReturn, isTokenExpired, tokenPermissions } from './token.ts';

export { CALLBACK_PATH };

const HANDOFF_STORAGE_KEY = 'pm.handoffToken';
const SIGNIN_ATTEMPTS_KEY = 'pm.signinAttempts';
/** A broken issuer must not bounce the browser forever between app and sign-in host. */
const MAX_SIGNIN_ATTEMPTS = 3;

export interface AuthSession {
  /** The bearer token for API calls, or null when signed out. */
  getAccessToken(): string | null;
  /** Permissions claim of the current access token (for display and routing only). */
  getPermissions(): string[];
  /**
   * Removes the stored user and sends the browser to the sign-in host (the 401 handler). Rejects when
   * sign-in keeps failing (several round trips without one successful API call).
   */
  handleUnauthorized(): Promise<void>;
  /** Records that the API accepted the token, ending a run of sign-in attempts. */
  confirmSignedIn(): void;
  /** Clears the user and goes to the product's own site through the issuer's end-session endpoint. */
  logout(): Promise<void>;
  /**
   * Goes to the sign-in host's two-factor settings (turn on with a QR code, or off): the password
   * again, then the settings, then back here signed in anew.
   */
  manageTwoFactor(): Promise<void>;
  /**
   * Gets a fresh access token now (the refresh token), so claims that changed since (a confirmed
   * address) reach the API at once; a hand-off token cannot be refreshed and stays as it is.
   */
  refreshToken(): Promise<void>;
}

/** What the sign-in reads of an environment: the page's first script has only these checked (app/environment-file.ts). */
export type SignInEnvironment = Pick<TEnvironment, 'issuer' | 'clientId' | 'audience' | 'siteUrl'>;

export type AuthInitResult = { kind: 'ready'; session: AuthSession } | { kind: 'redirecting' };

let initPromise: Promise<AuthInitResult> | null = null;

/** Runs sign-in initialisation once per page load (React may mount twice in development). */
export function initAuth(env: SignInEnvironment): Promise<AuthInitResult> {
  initPromise ??= runInit(env);
  return initPromise;
}

async function runInit(env: SignInEnvironment): Promise<AuthInitResult> {
  const oidc = createOidcClient(env);
  const handoffStart = await takeHandoffReturn(env);
  if (handoffStart) return handoffStart;
  let handoff = sessionStorage.getItem(HANDOFF_STORAGE_KEY);

  let tokens: Tokens | null = null;
  if (window.location.pathname === CALLBACK_PATH) {
    try {
      const back = await oidc.finishSignIn();
      tokens = back.tokens;
      window.history.replaceState(null, '', back.returnTo);
      handoff = null;
      clearHandoffToken();
    } catch (e) {
      // A stale or replayed callback: start a fresh sign-in (bounded by the attempt counter).
      console.warn('sign-in callback failed', e);
      window.history.replaceState(null, '', '/');
    }
  }

  if (handoff && !isTokenExpired(handoff, Date.now())) {
    return { kind: 'ready', session: handoffSession(handoff, env) };
  }
  if (handoff) clearHandoffToken();
  // The tokens live in this page's memory only: anywhere but the sign-in's return, a page signs in.
  if (tokens) return { kind: 'ready', session: oidcSession(oidc, tokens, env) };
  await redirectToSignIn(oidc);
  return { kind: 'redirecting' };
}

/**
 * Whether this page load can end signed in without leaving for the sign-in host: the sign-in's return
 * (`/callback`), a hand-off's return, or a tab holding a hand-off token. Anywhere else a fresh page
 * has no user (kept in memory only) and is sent to sign in, so the boot fetches the app's code
 * alongside the sign-in only here.
 */
export function mayStaySignedIn(): boolean {
  const { pathname, href } = window.location;
  if (pathname === CALLBACK_PATH || sessionStorage.getItem(HANDOFF_STORAGE_KEY)) return true;
  const back = extractHandoffReturn(href);
  return back.code !== null || back.error !== null;
}

/** The path the app will show first: where the sign-in's return goes, else this page's own. */
export function firstScreenPath(): string {
  const { pathname } = window.location;
  return pathname === CALLBACK_PATH ? (pendingReturnTo() ?? '/') : pathname;
}

async function redirectToSignIn(oidc: OidcClient): Promise<void> {
  const attempts = Number(sessionStorage.getItem(SIGNIN_ATTEMPTS_KEY) ?? 0);
  if (attempts >= MAX_SIGNIN_ATTEMPTS) {
    // Cleared so that a manual reload starts afresh; the app shows the global error meanwhile.
    sessionStorage.removeItem(SIGNIN_ATTEMPTS_KEY);
    throw new Error('sign-in did not complete after several attempts');
  }
  sessionStorage.setItem(SIGNIN_ATTEMPTS_KEY, String(attempts + 1));
  const here =
    window.location.pathname === CALLBACK_PATH ? '/' : window.location.pathname + window.location.search;
  await oidc.signIn(here);
}

/** The tokens of a sign-in, renewed with the refresh token this long before the access token expires. */
const RENEW_BEFORE_MS = 60_000;

function oidcSession(oidc: OidcClient, initial: Tokens, env: SignInEnvironment): AuthSession {
  let tokens: Tokens | null = initial;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let renewing: Promise<void> | null = null;
  const schedule = () => {
    clearTimeout(timer);
    if (!tokens?.refreshToken || tokens.expiresAtMs === null) return;
    // A minute ahead; a token that lives under two minutes at half its life (never in a loop).
    const lifeMs = tokens.expiresAtMs - Date.now();
    const inMs = Math.max(lifeMs / 2, lifeMs - RENEW_BEFORE_MS, 1000);
    timer = setTimeout(() => {
      renew().catch((e: unknown) => console.warn('token renewal failed', e));
    }, inMs);
  };
  const renew = (): Promise<void> => {
    renewing ??= (async () => {
      if (!tokens) return;
      tokens = await oidc.refresh(tokens);
      schedule();
    })().finally(() => {
      renewing = null;
    });
    return renewing;
  };
  const drop = () => {
    clearTimeout(timer);
    tokens = null;
  };
  schedule();
  let redirecting: Promise<void> | null = null;
  return {
    getAccessToken: () => tokens?.accessToken ?? null,
    getPermissions: () => tokenPermissions(tokens?.accessToken ?? null),
    handleUnauthorized() {
      drop();
      redirecting ??= redirectToSignIn(oidc);
      return redirecting;
    },
    confirmSignedIn,
    manageTwoFactor: () => manageTwoFactor(oidc),
    refreshToken: renew,
    async logout() {
      const idToken = tokens?.idToken ?? null;
      drop();
      try {
        await oidc.signOut(idToken, env.siteUrl);
      } catch {
        window.location.assign(env.siteUrl);
      }
    },
  };
}

function handoffSession(token: string, env: SignInEnvironment): AuthSession {
  let current: string | null = token;
  let redirecting: Promise<void> | null = null;
  return {
    getAccessToken: () => current,
    getPermissions: () => tokenPermissions(current),
    handleUnauthorized() {
      current = null;
      clearHandoffToken();
      redirecting ??= redirectToSignIn(createOidcClient(env));
      return redirecting;
    },
    confirmSignedIn,
    manageTwoFactor: () => manageTwoFactor(createOidcClient(env)),
    refreshToken: async () => {},
    async logout() {
      current = null;
      clearHandoffToken();
      window.location.assign(env.siteUrl);
    },
  };
}

/**
 * Takes the hand-off's parameters out of the address. A start request (`?handoff=1`) sends the
 * tab to the sign-in host (the answer is `redirecting`); a return that is this tab's own leaves
 * its token in this tab's storage; anything else is dropped.
 */
async function takeHandoffReturn(env: SignInEnvironment): Promise<AuthInitResult | null> {
  if (window.location.pathname === CALLBACK_PATH) return null;
  const back = extractHandoffReturn(window.location.href);
  if (back.cleanUrl !== window.location.href) window.history.replaceState(null, '', back.cleanUrl);
  if (back.start) {
    await startHandoff(env, back.cleanUrl);
    return { kind: 'redirecting' };
  }
  const token = await finishHandoff(env, back);
  if (token) sessionStorage.setItem(HANDOFF_STORAGE_KEY, token);
  return null;
}

/** The sign-in host's two-factor settings, with the password asked again; back to this page after. */
function manageTwoFactor(oidc: OidcClient): Promise<void> {
  return oidc.signIn(window.location.pathname + window.location.search, {
    prompt: 'login',
    two_factor: 'manage',
  });
}

function confirmSignedIn(): void {
  sessionStorage.removeItem(SIGNIN_ATTEMPTS_KEY);
}

function clearHandoffToken(): void {
  sessionStorage.removeItem(HANDOFF_STORAGE_KEY);
}
