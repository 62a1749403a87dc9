import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { type Limits, TOO_MANY } from './limits.ts';
import { normalizeEmail } from './passwords.ts';
import { apiResourceServer } from './provider.ts';
import type { UsersService } from './users.service.ts';

export interface PasswordGrantDeps {
  users: UsersService;
  limits: Limits;
  apiAudience: string;
  accessTokenTtlSeconds: number;
}

function tooManyRequests(ctx: KoaContextWithOIDC, retryAfterS: number): Error {
  ctx.set('Retry-After', String(retryAfterS));
  const e = new errors.CustomOIDCProviderError('too_many_requests', TOO_MANY);
  Object.assign(e, { status: 429, statusCode: 429 });
  return e;
}

/**
 * The resource-owner password grant the public API documents (a recorded ASVS 10.4.4 deviation).
 * Only clients registered with `grant_types: ['password']` reach this handler (the provider checks);
 * it issues the same JWT access token as the code flow and never a refresh token.
 */
export function registerPasswordGrant(provider: Provider, deps: PasswordGrantDeps): void {
  const resourceServer = apiResourceServer(deps.apiAudience, deps.accessTokenTtlSeconds);

  async function handler(ctx: KoaContextWithOIDC): Promise<void> {
    const params = ctx.oidc.params as { username?: string; password?: string };
    if (!params.username || !params.password) {
      throw new errors.InvalidRequest('username and password are required');
    }
    const client = ctx.oidc.client;
    if (!client) throw new errors.InvalidClient();
    const ip = ctx.ip;
    const email = normalizeEmail(params.username) ?? params.username.slice(0, 254).toLowerCase();

    const knownIp = await deps.users.isLastLoginIp(email, ip);
    const admission = await deps.limits.beginLogin(email, ip, { knownIp });
    if (!admission.ok) throw tooManyRequests(ctx, admission.retryAfterS);
    const result = await deps.users.authenticate(email, params.password);
    if (!result.ok) {
      await admission.ticket.failed();
      // invalid_grant with our own description ('Wrong email or password.', the blocked text).
      throw new errors.CustomOIDCProviderError('invalid_grant', result.message);
    }
    await admission.ticket.succeeded();
    await deps.users.recordLogin(result.user.id, ip);

    // A grant per token request keeps the model uniform (revocation by account finds it); its TTL is
    // the access token's, so these rows expire quickly (see ttl.Grant).
    const grant = new provider.Grant({ accountId: result.user.id, clientId: client.clientId });
    grant.addResourceScope(deps.apiAudience, 'api');
    const grantId = await grant.save();
    const at = new provider.AccessToken({ accountId: result.user.id, client, grantId, gty: 'password' });
    at.resourceServer = new provider.ResourceServer(deps.apiAudience, resourceServer);
    at.scope = '';
    const accessToken = await at.save();

    ctx.body = {
      access_token: accessToken,
      expires_in: at.expiration,
      token_type: at.tokenType,
    };
  }

  provider.registerGrantType('password', handler, ['username', 'password', 'scope']);
}
