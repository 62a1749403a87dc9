import { isStaffPermissionName } from '@pm/contracts';
import type { DbHandle } from '@pm/db';
import Provider, { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider';
import { createAdapterFactory } from './adapter.ts';
import { errorPage, logoutConfirmPage, logoutSubmitPage, messagePage } from './pages/views.ts';
import { hasTwoFactor } from './two-factor.service.ts';
import type { UsersService } from './users.service.ts';

export interface ProviderOptions {
  issuer: string;
  db: DbHandle;
  users: UsersService;
  apiAudience: string;
  webClient: { clientId: string; redirectUris: string[]; postLogoutRedirectUris: string[] };
  apiClient: { clientId: string };
  corsOrigins: string[];
  appUrl: string;
  jwks: { keys: object[] };
  cookieKeys: string[];
  accessTokenTtlSeconds: number;
}

const DAY = 24 * 60 * 60;

/** What a JWT access token for the market API looks like (RFC 9068, ES256). */
export function apiResourceServer(apiAudience: string, accessTokenTtlSeconds: number) {
  return {
    scope: 'api',
    audience: apiAudience,
    accessTokenTTL: accessTokenTtlSeconds,
    accessTokenFormat: 'jwt' as const,
    jwt: { sign: { alg: 'ES256' as const } },
  };
}

/**
 * True when the signed-in user's own client asked to sign out: the request carries an ID token
 * hint (oidc-provider has verified its signature) for the account of this browser session. Only
 * then is there no question; a bare link to the end-session endpoint, which any site could
 * embed, still asks.
 */
function isOwnSignOut(ctx: KoaContextWithOIDC): boolean {
  const sub = ctx.oidc.entities.IdTokenHint?.payload.sub;
  return typeof sub === 'string' && sub === ctx.oidc.session?.accountId;
}

/**
 * The permissions an access token carries: a staff account's staff permissions only once it has
 * two-factor sign-in, so a token issued before its enrolment (by the password grant, or an old
 * session) reaches nothing of the admin area, on the market API and the admin API alike.
 */
export function tokenPermissions(user: { permissions: string[]; totpSecret: string | null }): string[] {
  return hasTwoFactor(user) ? user.permissions : user.permissions.filter((p) => !isStaffPermissionName(p));
}

/** Builds the OpenID provider: clients, token formats, lifetimes, account lookup and page templates. */
export function createProvider(o: ProviderOptions): Provider {
  const resourceServer = apiResourceServer(o.apiAudience, o.accessTokenTtlSeconds);
  const corsOrigins = new Set(o.corsOrigins);

  const configuration: Configuration = {
    adapter: createAdapterFactory(o.db),
    clients: [
      {
        client_id: o.webClient.clientId,
        client_name: 'ProxyMarket web app',
        application_type: 'web',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: o.webClient.redirectUris,
        post_logout_redirect_uris: o.webClient.postLogoutRedirectUris,
      },
      // A public client: its id is published on the API page, so a secret beside it would prove
      // nothing. The customer proves who they are with their password (or uses an API key).
      {
        client_id: o.apiClient.clientId,
        client_name: 'ProxyMarket public API',
        token_endpoint_auth_method: 'none',
        grant_types: ['password'],
        response_types: [],
        redirect_uris: [],
      },
    ],
    clientDefaults: { id_token_signed_response_alg: 'ES256' },
    jwks: o.jwks as Configuration['jwks'],
    cookies: { keys: o.cookieKeys },
    scopes: ['openid', 'offline_access', 'email', 'api'],
    claims: {
      // The ID token always carries who the user is and their own invite code.
      openid: ['sub', 'email', 'email_verified', 'referral_code'],
      email: ['email', 'email_verified'],
    },
    // `ref`: the invite code of a sign-up; `two_factor=manage`: the app's way to the two-factor settings.
    extraParams: ['ref', 'two_factor'],
    // Code flow only: no implicit or hybrid responses (tokens never travel in the front channel).
    responseTypes: ['code', 'none'],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        async logoutSource(ctx, form) {
          ctx.type = 'html';
          ctx.body = isOwnSignOut(ctx)
            ? logoutSubmitPage({ form })
            : logoutConfirmPage({ form, appUrl: o.appUrl });
        },
        async postLogoutSuccessSource(ctx) {
          ctx.type = 'html';
          ctx.body = messagePage({
            title: 'Signed out',
            message: 'You are signed out.',
            linkText: 'Back to the app',
            linkUrl: o.appUrl,
          });
        },
      },
      resourceIndicators: {
        enabled: true,
        // No default resource: a client that asks for the market API (the web app always does) gets
        // its JWT; one that asks for nothing (a plain OpenID client) gets an opaque token for userinfo.
        defaultResource: async (_ctx, _client, oneOf) => (oneOf ? o.apiAudience : undefined),
        // The resource asked for at authorization carries over to code exchange and refresh.
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (indicator !== o.apiAudience) throw new errors.InvalidTarget();
          return resourceServer;
        },
      },
    },
    async findAccount(_ctx, sub) {
      const user = await o.users.findById(sub);
      // Blocked users have no account as far as the provider is concerned: refresh and SSO stop.
      if (!user || user.blocked) return undefined;
      return {
        accountId: user.id,
        async claims() {
          return {
            sub: user.id,
            email: user.email,
            email_verified: user.emailVerified,
            referral_code: user.referralCode,
          };
        },
      };
    },
    async extraTokenClaims(_ctx, token) {
      const accountId = (token as { accountId?: string }).accountId;
      if (!accountId) return undefined;
      const user = await o.users.findById(accountId);
      if (!user) return undefined;
      return {
        permissions: tokenPermissions(user),
        email: user.email,
        // The market API refuses top-ups and purchases until the address is confirmed; a token
        // refreshed after the confirmation link carries true.
        email_verified: user.emailVerified,
        referral_code: user.referralCode,
        // The inviter's code from the sign-up's invite link, once the address is verified by the
        // sign-up mail's link (pending until then): the market API keeps it on the account.
        ...(user.invitedBy && user.emailVerified ? { referred_by: user.invitedBy } : {}),
      };
    },
    async issueRefreshToken(_ctx, client) {
      return client.clientId === o.webClient.clientId && client.grantTypeAllowed('refresh_token');
    },
    rotateRefreshToken: true,
    // Tokens die with the browser session, so signing out (or a block) ends the refresh family too.
    expiresWithSession: async () => true,
    clientBasedCORS: (_ctx, origin) => corsOrigins.has(origin),
    ttl: {
      AccessToken: o.accessTokenTtlSeconds,
      AuthorizationCode: 60,
      ClientCredentials: o.accessTokenTtlSeconds,
      IdToken: 60 * 60,
      Interaction: 60 * 60,
      Session: 14 * DAY,
      // Password-grant grants only back one short-lived access token.
      Grant: (_ctx: KoaContextWithOIDC, grant: { clientId?: string }) =>
        grant.clientId === o.apiClient.clientId ? o.accessTokenTtlSeconds : 14 * DAY,
      // A rotated refresh token never outlives the first one: 14 days absolute for the SPA.
      RefreshToken(ctx: KoaContextWithOIDC) {
        const rotated = ctx?.oidc?.entities.RotatedRefreshToken;
        return rotated ? rotated.remainingTTL : 14 * DAY;
      },
    },
    interactions: { url: async (_ctx, interaction) => `/interaction/${interaction.uid}` },
    async renderError(ctx, out) {
      ctx.type = 'html';
      const message = out.error_description
        ? String(out.error_description)
        : 'The request could not be completed.';
      ctx.body = errorPage({ message, appUrl: o.appUrl });
    },
  };

  return new Provider(o.issuer, configuration);
}
