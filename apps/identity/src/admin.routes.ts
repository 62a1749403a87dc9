import Router from '@koa/router';
import { AppError, ENDPOINTS, isAppError, isStaff, type TUserChangeResult } from '@pm/contracts';
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import type { Context } from 'koa';
import { registerIdentityEndpoint, type UserCaller } from './endpoint.ts';
import type { HandoffService } from './handoff.service.ts';
import { type Limits, TOO_MANY } from './limits.ts';
import { logMailFailure } from './pages/routes.ts';
import { normalizeEmail } from './passwords.ts';
import type { StaffCaller, StaffService } from './staff.service.ts';
import { MSG, type UsersService } from './users.service.ts';

/** A staff change's answer: done, for this (normalised) address. */
const changed = ({ email }: { email: string }): TUserChangeResult => ({ ok: true, email });

export interface AdminDeps {
  users: UsersService;
  /** The staff operations behind `/administator/user/*`. */
  staff: StaffService;
  /** The `?token=` hand-off's redemption (`POST /handoff/token`). */
  handoff: HandoffService;
  limits: Limits;
  issuer: string;
  apiAudience: string;
  /** Public signing keys of this issuer. */
  publicJwks: JSONWebKeySet;
}

/**
 * The reset-mail endpoint and the admin auth API (bearer access tokens with both staff permissions),
 * each registered from its declaration in the endpoint contract (`IDENTITY_ENDPOINTS`).
 */
export function createAdminRouter(d: AdminDeps): Router {
  const router = new Router();
  const keys = createLocalJWKSet(d.publicJwks);

  /**
   * The caller of a bearer access token from this issuer for the API: 401 without one, for a
   * blocked user and for a token from before the user's tokens-valid-after time.
   */
  async function verifyCaller(ctx: Context): Promise<{ userId: string; permissions: string[] }> {
    const header = ctx.get('Authorization');
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match?.[1]) throw new AppError('UNAUTHENTICATED');
    let payload: { sub?: string; iat?: number; permissions?: unknown };
    try {
      ({ payload } = await jwtVerify(match[1], keys, {
        issuer: d.issuer,
        audience: d.apiAudience,
        algorithms: ['ES256'],
        typ: 'at+jwt',
        requiredClaims: ['sub', 'iat', 'exp'],
      }));
    } catch {
      throw new AppError('UNAUTHENTICATED');
    }
    const caller = payload.sub ? await d.users.findById(payload.sub) : undefined;
    const issuedAtMs = (payload.iat ?? 0) * 1000;
    if (
      !caller ||
      caller.blocked ||
      issuedAtMs < Math.floor(caller.tokensValidAfter.getTime() / 1000) * 1000
    ) {
      throw new AppError('UNAUTHENTICATED');
    }
    const permissions = Array.isArray(payload.permissions) ? payload.permissions.map(String) : [];
    return { userId: caller.id, permissions };
  }

  /** 401 without a valid token from this issuer for the API, 403 without both staff permissions. */
  async function requireStaff(ctx: Context): Promise<StaffCaller> {
    const caller = await verifyCaller(ctx);
    if (!isStaff(caller.permissions)) throw new AppError('FORBIDDEN');
    return caller;
  }

  /** Any signed-in user's own operation: 401 without a valid token. */
  const requireUser = async (ctx: Context): Promise<UserCaller> => ({
    userId: (await verifyCaller(ctx)).userId,
  });

  const api = { router, requireStaff, requireUser };

  registerIdentityEndpoint(api, ENDPOINTS.requestPasswordReset, async (ctx, { body }) => {
    const email = normalizeEmail(body.email);
    if (!email) throw new AppError('VALIDATION_FAILED', { userMessage: MSG.invalidEmail });
    if (!(await d.limits.takeReset(email, ctx.ip)))
      throw new AppError('RATE_LIMITED', { userMessage: TOO_MANY });
    // Same answer and timing for unknown emails: the mail goes out in the background.
    d.users.requestPasswordReset(email).catch(logMailFailure);
    return MSG.resetSent;
  });

  registerIdentityEndpoint(api, ENDPOINTS.redeemHandoff, (_ctx, { body }) => d.handoff.redeem(body));

  // The app's "resend the link" for an unconfirmed address: a few an hour per user.
  registerIdentityEndpoint(api, ENDPOINTS.resendVerificationEmail, async (_ctx, { caller }) => {
    if (!(await d.limits.takeVerifyMail(caller.userId)))
      throw new AppError('RATE_LIMITED', { userMessage: TOO_MANY });
    return d.users.resendVerification(caller.userId).catch((e: unknown) => {
      if (isAppError(e)) throw e;
      throw new AppError('UNAVAILABLE', {
        message: `verification mail failed: ${(e as Error).message}`,
        userMessage: 'The mail could not be sent, try again later.',
      });
    });
  });

  // With `blocked` it sets that state (idempotent); without it, it toggles (the rules §7 client
  // blocks and unblocks with the same call).
  registerIdentityEndpoint(api, ENDPOINTS.blockUser, (_ctx, { body, caller }) =>
    d.staff.setBlocked(caller, body),
  );

  registerIdentityEndpoint(api, ENDPOINTS.getUserInfo, (_ctx, { body }) => d.staff.getInfo(body.email));

  registerIdentityEndpoint(api, ENDPOINTS.setUserPassword, async (_ctx, { body, caller }) =>
    changed(await d.staff.setPassword(caller, body)),
  );

  registerIdentityEndpoint(api, ENDPOINTS.resetUserTwoFactor, async (_ctx, { body, caller }) =>
    changed(await d.staff.resetTwoFactor(caller, body)),
  );

  registerIdentityEndpoint(api, ENDPOINTS.mailUserResetLink, async (_ctx, { body, caller }) =>
    changed(await d.staff.mailResetLink(caller, body)),
  );

  return router;
}
