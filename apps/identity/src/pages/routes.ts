import Router from '@koa/router';
import { isAppError } from '@pm/contracts';
import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import { csrfToken, isCsrfValid, readBody, sendHtml } from '../http.ts';
import { type Limits, TOO_MANY } from '../limits.ts';
import { normalizeEmail } from '../passwords.ts';
import { MSG, type UsersService } from '../users.service.ts';
import { forgotPage, loginPage, messagePage, resetPage, signupPage } from './views.ts';

export interface PageDeps {
  provider: Provider;
  users: UsersService;
  limits: Limits;
  appUrl: string;
  webClientId: string;
  apiAudience: string;
}

const CSRF_ERROR = 'Your session expired. Please try again.';
/** Invite code from `/signup?ref=`, kept while the visitor finds their way to the sign-up form. */
const REF_COOKIE = 'pm_ref';
/** Account id of a sign-up made outside an authorization request, to sign in once without retyping. */
const FRESH_COOKIE = 'pm_fresh';
const FRESH_MAX_AGE_MS = 10 * 60 * 1000;

function cleanRef(value: unknown): string {
  return typeof value === 'string' && /^[A-Za-z0-9]{1,32}$/.test(value) ? value.toUpperCase() : '';
}

export function logMailFailure(e: unknown): void {
  console.error(`identity: sending mail failed: ${(e as Error).message}`);
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Sign-in, sign-up, reset and verify pages; no scripts, CSRF-checked forms, specific errors. */
export function createPageRouter(d: PageDeps): Router {
  const router = new Router();
  const { provider, users, limits } = d;

  const interactionUrls = (uid: string) => ({
    login: `/interaction/${uid}`,
    loginAction: `/interaction/${uid}/login`,
    signup: `/interaction/${uid}/signup`,
    forgot: `/forgot?back=${encodeURIComponent(`/interaction/${uid}`)}`,
  });

  async function finish(ctx: Context, result: Parameters<Provider['interactionResult']>[2]): Promise<void> {
    const returnTo = await provider.interactionResult(ctx.req, ctx.res, result, {
      mergeWithLastSubmission: false,
    });
    ctx.status = 303;
    ctx.redirect(returnTo);
  }

  async function finishLogin(ctx: Context, accountId: string): Promise<void> {
    await finish(ctx, { login: { accountId, amr: ['pwd'], remember: true } });
  }

  /** First-party client: grant what it asked for without a consent screen. */
  async function autoConsent(ctx: Context, details: Awaited<ReturnType<Provider['interactionDetails']>>) {
    const { params, session } = details;
    const promptDetails = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (params.client_id !== d.webClientId || !session?.accountId) {
      return finish(ctx, { error: 'access_denied', error_description: 'consent required' });
    }
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: session.accountId, clientId: d.webClientId });
    if (!grant) return finish(ctx, { error: 'access_denied', error_description: 'grant not found' });
    if (promptDetails.missingOIDCScope) grant.addOIDCScope(promptDetails.missingOIDCScope.join(' '));
    if (promptDetails.missingOIDCClaims) grant.addOIDCClaims(promptDetails.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(promptDetails.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    grant.addResourceScope(d.apiAudience, 'api');
    const grantId = await grant.save();
    return finish(ctx, { consent: { grantId } });
  }

  /** The id from a valid fresh-sign-up cookie (signed, 10 minutes, used once). */
  function takeFreshSignup(ctx: Context): string | undefined {
    const value = ctx.cookies.get(FRESH_COOKIE, { signed: true });
    if (!value) return undefined;
    ctx.cookies.set(FRESH_COOKIE, null, { signed: true, path: '/' });
    const [id, at] = value.split('.');
    if (!id || !at || Date.now() - Number(at) > FRESH_MAX_AGE_MS) return undefined;
    return id;
  }

  router.get('/interaction/:uid', async (ctx) => {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    if (details.prompt.name === 'consent') return autoConsent(ctx, details);
    if (details.prompt.name !== 'login') {
      return finish(ctx, { error: 'login_required', error_description: 'unsupported prompt' });
    }
    const freshId = takeFreshSignup(ctx);
    const fresh = freshId ? await users.findById(freshId) : undefined;
    if (fresh && !fresh.blocked) {
      await users.recordLogin(fresh.id, ctx.ip);
      return finishLogin(ctx, fresh.id);
    }
    const urls = interactionUrls(details.uid);
    const hint = str(details.params.login_hint);
    sendHtml(
      ctx,
      loginPage({
        action: urls.loginAction,
        csrf: csrfToken(ctx),
        email: hint,
        signupUrl: urls.signup,
        forgotUrl: urls.forgot,
      }),
    );
  });

  router.post('/interaction/:uid/login', async (ctx) => {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const body = await readBody(ctx);
    const urls = interactionUrls(details.uid);
    const email = normalizeEmail(body.email) ?? str(body.email).slice(0, 254).toLowerCase();
    const show = (error: string, status = 400) =>
      sendHtml(
        ctx,
        loginPage({
          action: urls.loginAction,
          csrf: csrfToken(ctx),
          email: str(body.email),
          error,
          signupUrl: urls.signup,
          forgotUrl: urls.forgot,
        }),
        status,
      );
    if (!isCsrfValid(ctx, body)) return show(CSRF_ERROR, 403);
    if (!email || !str(body.password)) return show('Enter your email and password.');
    const knownIp = await users.isLastLoginIp(email, ctx.ip);
    const admission = await limits.beginLogin(email, ctx.ip, { knownIp });
    if (!admission.ok) {
      ctx.set('Retry-After', String(admission.retryAfterS));
      return show(TOO_MANY, 429);
    }
    const result = await users.authenticate(email, body.password);
    if (!result.ok) {
      await admission.ticket.failed();
      return show(result.message, result.message === MSG.blocked ? 403 : 400);
    }
    await admission.ticket.succeeded();
    await users.recordLogin(result.user.id, ctx.ip);
    return finishLogin(ctx, result.user.id);
  });

  router.get('/interaction/:uid/signup', async (ctx) => {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const urls = interactionUrls(details.uid);
    const refCode = cleanRef(details.params.ref) || cleanRef(ctx.cookies.get(REF_COOKIE));
    sendHtml(ctx, signupPage({ action: urls.signup, csrf: csrfToken(ctx), refCode, loginUrl: urls.login }));
  });

  /** Shared sign-up handling; returns the new user id, or renders the form again with the error. */
  async function handleSignup(ctx: Context, action: string, loginUrl: string | undefined) {
    const body = await readBody(ctx);
    const refCode = cleanRef(body.ref);
    const show = (error: string, status = 400) =>
      sendHtml(
        ctx,
        signupPage({ action, csrf: csrfToken(ctx), email: str(body.email), error, refCode, loginUrl }),
        status,
      );
    if (!isCsrfValid(ctx, body)) return show(CSRF_ERROR, 403);
    const email = normalizeEmail(body.email);
    if (!email) return show(MSG.invalidEmail);
    if (!(await limits.takeSignup(email, ctx.ip))) return show(TOO_MANY, 429);
    try {
      const user = await users.signUp({ email, password: body.password, ref: refCode });
      ctx.cookies.set(REF_COOKIE, null, { path: '/' });
      return user.id;
    } catch (e) {
      if (isAppError(e) && e.code !== 'INTERNAL') return show(e.userMessage, e.status);
      throw e;
    }
  }

  router.post('/interaction/:uid/signup', async (ctx) => {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const urls = interactionUrls(details.uid);
    const userId = await handleSignup(ctx, urls.signup, urls.login);
    if (userId) {
      await users.recordLogin(userId, ctx.ip);
      return finishLogin(ctx, userId);
    }
  });

  // The invite-link entry point: works without an authorization request in progress.
  router.get('/signup', (ctx) => {
    const refCode = cleanRef(ctx.query.ref);
    if (refCode) {
      ctx.cookies.set(REF_COOKIE, refCode, {
        httpOnly: true,
        sameSite: 'lax',
        secure: ctx.secure,
        path: '/',
        maxAge: 30 * 24 * 60 * 60 * 1000,
      });
    }
    const kept = refCode || cleanRef(ctx.cookies.get(REF_COOKIE));
    sendHtml(ctx, signupPage({ action: '/signup', csrf: csrfToken(ctx), refCode: kept, loginUrl: d.appUrl }));
  });

  router.post('/signup', async (ctx) => {
    const userId = await handleSignup(ctx, '/signup', d.appUrl);
    if (userId) {
      ctx.cookies.set(FRESH_COOKIE, `${userId}.${Date.now()}`, {
        signed: true,
        httpOnly: true,
        sameSite: 'lax',
        secure: ctx.secure,
        path: '/',
        maxAge: FRESH_MAX_AGE_MS,
      });
      // The app starts its own sign-in; the fresh cookie signs the new user in without retyping.
      ctx.status = 303;
      ctx.redirect(d.appUrl);
    }
  });

  const safeBack = (value: unknown) => {
    const s = str(value);
    return /^\/interaction\/[\w-]+$/.test(s) ? s : undefined;
  };

  router.get('/forgot', (ctx) => {
    const back = safeBack(ctx.query.back);
    const action = back ? `/forgot?back=${encodeURIComponent(back)}` : '/forgot';
    sendHtml(ctx, forgotPage({ action, csrf: csrfToken(ctx), backUrl: back ?? d.appUrl }));
  });

  router.post('/forgot', async (ctx) => {
    const back = safeBack(ctx.query.back);
    const action = back ? `/forgot?back=${encodeURIComponent(back)}` : '/forgot';
    const body = await readBody(ctx);
    const base = { action, csrf: csrfToken(ctx), backUrl: back ?? d.appUrl, email: str(body.email) };
    if (!isCsrfValid(ctx, body)) return sendHtml(ctx, forgotPage({ ...base, error: CSRF_ERROR }), 403);
    const email = normalizeEmail(body.email);
    if (!email) return sendHtml(ctx, forgotPage({ ...base, error: MSG.invalidEmail }), 400);
    if (!(await limits.takeReset(email, ctx.ip)))
      return sendHtml(ctx, forgotPage({ ...base, error: TOO_MANY }), 429);
    // Same answer and timing whether or not the account exists: the mail goes out in the background.
    users.requestPasswordReset(email).catch(logMailFailure);
    sendHtml(ctx, forgotPage({ ...base, notice: MSG.resetSent }));
  });

  router.get('/reset-password', async (ctx) => {
    const token = str(ctx.query.token);
    if (!token || !(await users.isResetTokenUsable(token))) {
      return sendHtml(
        ctx,
        messagePage({
          title: 'Link expired',
          message: MSG.linkInvalid,
          linkText: 'Request a new link',
          linkUrl: '/forgot',
        }),
        400,
      );
    }
    sendHtml(ctx, resetPage({ action: '/reset-password', csrf: csrfToken(ctx), token }));
  });

  router.post('/reset-password', async (ctx) => {
    const body = await readBody(ctx);
    const token = str(body.token);
    const show = (error: string, status = 400) =>
      sendHtml(ctx, resetPage({ action: '/reset-password', csrf: csrfToken(ctx), token, error }), status);
    if (!isCsrfValid(ctx, body)) return show(CSRF_ERROR, 403);
    try {
      const { email } = await users.resetPassword(token, body.password);
      limits.clearAccount(email);
    } catch (e) {
      if (isAppError(e) && e.code === 'VALIDATION_FAILED') return show(e.userMessage);
      throw e;
    }
    sendHtml(
      ctx,
      messagePage({
        title: 'Password changed',
        message: 'Your password has been changed. Sign in with your new password.',
        linkText: 'Back to the app',
        linkUrl: d.appUrl,
      }),
    );
  });

  router.get('/verify-email', async (ctx) => {
    const token = str(ctx.query.token);
    const ok = token ? await users.verifyEmail(token) : false;
    sendHtml(
      ctx,
      ok
        ? messagePage({
            title: 'Email confirmed',
            message: 'Thank you, your email address is confirmed.',
            linkText: 'Back to the app',
            linkUrl: d.appUrl,
          })
        : messagePage({
            title: 'Link expired',
            message: MSG.linkInvalid,
            linkText: 'Back to the app',
            linkUrl: d.appUrl,
          }),
      ok ? 200 : 400,
    );
  });

  return router;
}
