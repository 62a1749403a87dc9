/**
 * Sign-in for the web app: authorization code + PKCE against the environment's issuer (oidc-client-ts),
 * the access token kept in memory only and renewed silently with rotating refresh tokens. The spec's
 * `?token=` hand-off (SPEC section 6) is honoured too: the token is taken out of the address at once and
 * kept for this tab only (sessionStorage).
 */
import type { TEnvironment } from '@pm/contracts';
import { InMemoryWebStorage, type User, UserManager, WebStorageStateStore } from 'oidc-client-ts';
import { extractHandoffToken, isTokenExpired, tokenPermissions } from './token.ts';

export const CALLBACK_PATH = '/callback';
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
}

export type AuthInitResult = { kind: 'ready'; session: AuthSession } | { kind: 'redirecting' };

let initPromise: Promise<AuthInitResult> | null = null;

/** Runs sign-in initialisation once per page load (React may mount twice in development). */
export function initAuth(env: TEnvironment): Promise<AuthInitResult> {
  initPromise ??= runInit(env);
  return initPromise;
}

function createUserManager(env: TEnvironment): UserManager {
  const origin = window.location.origin;
  return new UserManager({
    authority: env.issuer,
    client_id: env.clientId,
    redirect_uri: origin + CALLBACK_PATH,
    post_logout_redirect_uri: env.siteUrl,
    response_type: 'code',
    scope: 'openid email offline_access',
    // The resource indicator makes the access token's audience the market API (a JWT it can verify).
    resource: env.audience,
    extraTokenParams: { resource: env.audience },
    userStore: new WebStorageStateStore({ store: new InMemoryWebStorage() }),
    stateStore: new WebStorageStateStore({ store: window.sessionStorage }),
    automaticSilentRenew: true,
    loadUserInfo: false,
  });
}

async function runInit(env: TEnvironment): Promise<AuthInitResult> {
  const manager = createUserManager(env);
  let user: User | null = null;
  let handoff = takeHandoffToken();

  const location = window.location;
  if (location.pathname === CALLBACK_PATH) {
    try {
      user = await manager.signinRedirectCallback();
      const target =
        typeof user.url_state === 'string' && user.url_state.startsWith('/') ? user.url_state : '/';
      window.history.replaceState(null, '', target);
      handoff = null;
      clearHandoffToken();
    } catch (e) {
      // A stale or replayed callback: start a fresh sign-in (bounded by the attempt counter).
      console.warn('sign-in callback failed', e);
      window.history.replaceState(null, '', '/');
    }
  }
  if (!user && !handoff) user = await manager.getUser();

  if (handoff && !isTokenExpired(handoff, Date.now())) {
    return { kind: 'ready', session: handoffSession(handoff, env) };
  }
  if (handoff) clearHandoffToken();
  if (user && !user.expired) {
    return { kind: 'ready', session: oidcSession(manager, user, env) };
  }
  await redirectToSignIn(manager);
  return { kind: 'redirecting' };
}

async function redirectToSignIn(manager: UserManager): Promise<void> {
  const attempts = Number(sessionStorage.getItem(SIGNIN_ATTEMPTS_KEY) ?? 0);
  if (attempts >= MAX_SIGNIN_ATTEMPTS) {
    // Cleared so that a manual reload starts afresh; the app shows the global error meanwhile.
    sessionStorage.removeItem(SIGNIN_ATTEMPTS_KEY);
    throw new Error('sign-in did not complete after several attempts');
  }
  sessionStorage.setItem(SIGNIN_ATTEMPTS_KEY, String(attempts + 1));
  await manager.removeUser();
  const here =
    window.location.pathname === CALLBACK_PATH ? '/' : window.location.pathname + window.location.search;
  await manager.signinRedirect({ url_state: here });
}

function oidcSession(manager: UserManager, initial: User, env: TEnvironment): AuthSession {
  let user: User | null = initial;
  manager.events.addUserLoaded((u) => {
    user = u;
  });
  manager.events.addUserUnloaded(() => {
    user = null;
  });
  let redirecting: Promise<void> | null = null;
  return {
    getAccessToken: () => user?.access_token ?? null,
    getPermissions: () => tokenPermissions(user?.access_token ?? null),
    handleUnauthorized() {
      redirecting ??= redirectToSignIn(manager);
      return redirecting;
    },
    confirmSignedIn,
    async logout() {
      try {
        await manager.signoutRedirect({ post_logout_redirect_uri: env.siteUrl });
      } catch {
        await manager.removeUser();
        window.location.assign(env.siteUrl);
      }
    },
  };
}

function handoffSession(token: string, env: TEnvironment): AuthSession {
  let current: string | null = token;
  let redirecting: Promise<void> | null = null;
  return {
    getAccessToken: () => current,
    getPermissions: () => tokenPermissions(current),
    handleUnauthorized() {
      current = null;
      clearHandoffToken();
      redirecting ??= redirectToSignIn(createUserManager(env));
      return redirecting;
    },
    confirmSignedIn,
    async logout() {
      current = null;
      clearHandoffToken();
      window.location.assign(env.siteUrl);
    },
  };
}

/** Moves a `?token=` from the address into this tab's storage and returns the stored hand-off token. */
function takeHandoffToken(): string | null {
  const { token, cleanUrl } = extractHandoffToken(window.location.href);
  if (token !== null || cleanUrl !== window.location.href) window.history.replaceState(null, '', cleanUrl);
  if (token) sessionStorage.setItem(HANDOFF_STORAGE_KEY, token);
  return sessionStorage.getItem(HANDOFF_STORAGE_KEY);
}

function confirmSignedIn(): void {
  sessionStorage.removeItem(SIGNIN_ATTEMPTS_KEY);
}

function clearHandoffToken(): void {
  sessionStorage.removeItem(HANDOFF_STORAGE_KEY);
}
