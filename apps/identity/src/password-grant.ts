import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { type Limits, TOO_MANY } from './limits.ts';
import { normalizeEmail } from './passwords.ts';
import { apiResourceServer } from './provider.ts';
import { cleanTotpCode } from './totp.ts';
import { hasTwoFactor, type TwoFactorService } from './two-factor.service.ts';
import type { UserRow } from './users.repository.ts';
import type { UsersService } from './users.service.ts';

/** The grant's answer to an account with two-factor sign-in and no (or a wrong) `otp`. */
export const OTP_REQUIRED =
  'This account uses two-factor sign-in: send the current code from the authenticator app as otp, or use an API key.';
export const OTP_WRONG = 'The two-factor code is not valid (each code works once).';

export interface PasswordGrantDeps {
  users: UsersService;
  twoFactor: TwoFactorService;
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
    const params = ctx.oidc.params as { username?: string; password?: string; otp?: string };
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
    await checkSecondFactor(ctx, result.user, params.otp);
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

  /**
   * An account with two-factor sign-in needs `otp`: a current TOTP code (rate limited like a
   * password, never accepted twice; recovery codes are for the sign-in page only).
   */
  async function checkSecondFactor(ctx: KoaContextWithOIDC, user: UserRow, otp: string | undefined) {
    if (!hasTwoFactor(user)) return;
    const code = cleanTotpCode(otp);
    if (!code) throw new errors.CustomOIDCProviderError('invalid_grant', OTP_REQUIRED);
    const knownIp = user.lastLoginIp != null && user.lastLoginIp === ctx.ip;
    const admission = await deps.limits.beginCode(user.id, ctx.ip, { knownIp });
    if (!admission.ok) throw tooManyRequests(ctx, admission.retryAfterS);
    if (!(await deps.twoFactor.verifyCode(user, code))) {
      await admission.ticket.failed();
      throw new errors.CustomOIDCProviderError('invalid_grant', OTP_WRONG);
    }
    await admission.ticket.succeeded();
  }

  provider.registerGrantType('password', handler, ['username', 'password', 'scope', 'otp']);
}
