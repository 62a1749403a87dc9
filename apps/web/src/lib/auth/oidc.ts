/**
 * The web app's OpenID Connect client: one issuer, one public client, authorization code + PKCE.
 * oauth4webapi does the protocol (discovery, the authorization response's checks, the token
 * requests, the ID token's claims); this file keeps only what is ours: where the pending sign-in
 * is kept (this tab's sessionStorage), the audience asked for, and where the browser goes.
 */
import type { TEnvironment } from '@pm/contracts';
import * as oauth from 'oauth4webapi';
import { keepInTab, readInTab } from './tabStore.ts';

export const CALLBACK_PATH = '/callback';
/** One entry per sign-in started in this tab, by its state: two in flight (a second page load
 * before the first came back) each find their own verifier. */
const PENDING_PREFIX = 'pm.signin.';
const SCOPE = 'openid email offline_access';

export type OidcEnvironment = Pick<TEnvironment, 'issuer' | 'clientId' | 'audience'>;

export interface Tokens {
  accessToken: string;
  /** Rotating: each refresh answers a new one. */
  refreshToken: string | null;
  /** Kept for the end-session request's `id_token_hint`. */
  idToken: string | null;
  /** When the access token expires; null when the answer did not say (it is then never renewed ahead). */
  expiresAtMs: number | null;
}

export interface OidcClient {
  /** Sends the browser to the sign-in host; the return lands on `returnTo` (a path of this app). */
  signIn(returnTo: string, extraParams?: Record<string, string>): Promise<void>;
  /** Redeems the sign-in's return (this page's address): the tokens, and the path to go back to. */
  finishSignIn(): Promise<{ tokens: Tokens; returnTo: string }>;
  refresh(current: Tokens): Promise<Tokens>;
  /** Ends the session at the issuer and goes to `afterUrl`. */
  signOut(idToken: string | null, afterUrl: string): Promise<void>;
}

interface Pending {
  state: string;
  verifier: string;
  returnTo: string;
}

/** The state of the sign-in this page returns from (the `state` of its address), or null. */
const returningState = (): string | null => new URL(window.location.href).searchParams.get('state');

/** Where the sign-in this page returns from will land, without taking it (the first script looks ahead). */
export function pendingReturnTo(): string | null {
  const state = returningState();
  const p = state ? readInTab<Pending>(PENDING_PREFIX + state, false) : null;
  return typeof p?.returnTo === 'string' && p.returnTo.startsWith('/') ? p.returnTo : null;
}

/** The sign-in this page returns from, removed as it is read (a state is good for one return). */
function takePending(): Pending | null {
  const state = returningState();
  const p = state ? readInTab<Pending>(PENDING_PREFIX + state, true) : null;
  return p?.state === state && typeof p?.verifier === 'string' && typeof p.returnTo === 'string'
    ? (p as Pending)
    : null;
}

function toTokens(answer: oauth.TokenEndpointResponse, previous: Tokens | null): Tokens {
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token ?? previous?.refreshToken ?? null,
    idToken: answer.id_token ?? previous?.idToken ?? null,
    expiresAtMs: answer.expires_in === undefined ? null : Date.now() + answer.expires_in * 1000,
  };
}

export function createOidcClient(env: OidcEnvironment): OidcClient {
  const issuer = new URL(env.issuer);
  // `npm start` signs in over http on loopback; a deployed issuer is https and held to it.
  const transport = issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
  const client: oauth.Client = { client_id: env.clientId };
  const clientAuth = oauth.None();
  const redirectUri = window.location.origin + CALLBACK_PATH;
  // The resource indicator makes the access token's audience the market API (a JWT it can verify).
  const tokenRequest = { ...transport, additionalParameters: { resource: env.audience } };

  let metadata: Promise<oauth.AuthorizationServer> | null = null;
  const server = (): Promise<oauth.AuthorizationServer> => {
    metadata ??= oauth
      .discoveryRequest(issuer, { ...transport, algorithm: 'oidc' })
      .then((answer) => oauth.processDiscoveryResponse(issuer, answer))
      .catch((e: unknown) => {
        metadata = null;
        throw e;
      });
    return metadata;
  };

  return {
    async signIn(returnTo, extraParams = {}) {
      const as = await server();
      if (!as.authorization_endpoint) throw new Error('the issuer has no authorization endpoint');
      const pending: Pending = {
        state: oauth.generateRandomState(),
        verifier: oauth.generateRandomCodeVerifier(),
        returnTo,
      };
      keepInTab(PENDING_PREFIX + pending.state, pending);
      const url = new URL(as.authorization_endpoint);
      url.search = new URLSearchParams({
        client_id: env.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: SCOPE,
        resource: env.audience,
        state: pending.state,
        code_challenge: await oauth.calculatePKCECodeChallenge(pending.verifier),
        code_challenge_method: 'S256',
        ...extraParams,
      }).toString();
      window.location.assign(url.href);
    },

    async finishSignIn() {
      const pending = takePending();
      if (!pending) throw new Error('no sign-in was started in this tab');
      const as = await server();
      const params = oauth.validateAuthResponse(as, client, new URL(window.location.href), pending.state);
      const answer = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuth,
        params,
        redirectUri,
        pending.verifier,
        tokenRequest,
      );
      const tokens = toTokens(await oauth.processAuthorizationCodeResponse(as, client, answer), null);
      return { tokens, returnTo: pending.returnTo.startsWith('/') ? pending.returnTo : '/' };
    },

    async refresh(current) {
      if (!current.refreshToken) throw new Error('no refresh token');
      const as = await server();
      const answer = await oauth.refreshTokenGrantRequest(
        as,
        client,
        clientAuth,
        current.refreshToken,
        tokenRequest,
      );
      return toTokens(await oauth.processRefreshTokenResponse(as, client, answer), current);
    },

    async signOut(idToken, afterUrl) {
      const as = await server();
      if (!as.end_session_endpoint) {
        window.location.assign(afterUrl);
        return;
      }
      const url = new URL(as.end_session_endpoint);
      url.search = new URLSearchParams({
        client_id: env.clientId,
        post_logout_redirect_uri: afterUrl,
        ...(idToken ? { id_token_hint: idToken } : {}),
      }).toString();
      window.location.assign(url.href);
    },
  };
}
