import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import { isAppError } from '@pm/contracts';
import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import type { HandoffService } from '../handoff.service.ts';
import { csrfToken, isCsrfValid, readBody, sendHtml } from '../http.ts';
import { type Limits, TOO_MANY } from '../limits.ts';
import { normalizeEmail } from '../passwords.ts';
import type { TwoFactorService } from '../two-factor.service.ts';
import { MSG, type UsersService } from '../users.service.ts';
import { createTwoFactorSteps } from './two-factor.routes.ts';
import { errorPage, forgotPage, loginPage, messagePage, resetPage, signupPage } from './views.ts';

export interface PageDeps {
  provider: Provider;
  handoff: HandoffService;
  users: UsersService;
  twoFactor: TwoFactorService;
  limits: Limits;
  appUrl: string;
  webClientId: string;
  apiAudience: string;
}

const CSRF_ERROR = 'Your session expired. Please try again.';
/** Invite code from `/signup?ref=`, kept while the visitor finds their way to the sign-up form. */
const REF_COOKIE = 'pm_ref';
/**
 * Account id of this browser's sign-up, to sign in once without retyping after the address is
 * confirmed by the mailed link (a registered address gets a random id, so the answers match).
 */
const FRESH_COOKIE = 'pm_fresh';
const FRESH_MAX_AGE_MS = 30 * 60 * 1000;
export const CHECK_EMAIL_TITLE = 'Check your email';
/** The sign-up's one answer, whether or not the address has an account (issue 30 item 9). */
export const CHECK_EMAIL_MESSAGE =
  "We've sent a message to the address you entered. Open the link in it to finish creating your account. If you already have an account, the message tells you how to sign in.";

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

  /**
   * Ends an interaction step. The consent step keeps the login it follows (`merge`): with
   * `prompt=login` (the app's way to the two-factor settings) a consent result without it would
   * ask for the login again.
   */
  async function finish(
    ctx: Context,
    result: Parameters<Provider['interactionResult']>[2],
    merge = false,
  ): Promise<void> {
    const returnTo = await provider.interactionResult(ctx.req, ctx.res, result, {
      mergeWithLastSubmission: merge,
    });
    ctx.status = 303;
    ctx.redirect(returnTo);
  }

  async function finishLogin(ctx: Context, accountId: string, amr: string[]): Promise<void> {
    await finish(ctx, { login: { accountId, amr, remember: true } });
  }

  const secondFactor = createTwoFactorSteps({
    provider,
    users,
    twoFactor: d.twoFactor,
    limits,
    finishLogin,
  });

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
    // A grant ended meanwhile (a two-factor change ends them all) is granted afresh.
    const found = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
    const grant = found ?? new provider.Grant({ accountId: session.accountId, clientId: d.webClientId });
    if (promptDetails.missingOIDCScope) grant.addOIDCScope(promptDetails.missingOIDCScope.join(' '));
    if (promptDetails.missingOIDCClaims) grant.addOIDCClaims(promptDetails.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(promptDetails.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    grant.addResourceScope(d.apiAudience, 'api');
    const grantId = await grant.save();
    return finish(ctx, { consent: { grantId } }, true);
  }

  /**
   * The user of a valid fresh-sign-up cookie (signed, 30 minutes) whose address is confirmed by
   * now; the cookie is used once then. Before the confirmation it stays for a later visit.
   */
  async function takeFreshSignup(ctx: Context) {
    const value = ctx.cookies.get(FRESH_COOKIE, { signed: true });
    if (!value) return undefined;
    const [id, at] = value.split('.');
    const user =
      id && at && Date.now() - Number(at) <= FRESH_MAX_AGE_MS ? await users.findById(id) : undefined;
    if (user && !user.emailVerified) return undefined;
    ctx.cookies.set(FRESH_COOKIE, null, { signed: true, path: '/' });
    return user && !user.blocked ? user : undefined;
  }

  router.get('/interaction/:uid', async (ctx) => {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    if (details.prompt.name === 'consent') return autoConsent(ctx, details);
    if (details.prompt.name !== 'login') {
      return finish(ctx, { error: 'login_required', error_description: 'unsupported prompt' });
    }
    const fresh = await takeFreshSignup(ctx);
    if (fresh) return secondFactor.afterPassword(ctx, details, fresh);
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
    return secondFactor.afterPassword(ctx, details, result.user);
  });

  secondFactor.register(router);

  router.get('/interaction/:uid/signup', async (ctx) => {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const urls = interactionUrls(details.uid);
    const refCode = cleanRef(details.params.ref) || cleanRef(ctx.cookies.get(REF_COOKIE));
    sendHtml(ctx, signupPage({ action: urls.signup, csrf: csrfToken(ctx), refCode, loginUrl: urls.login }));
  });

  /**
   * Shared sign-up handling: renders the form again with a validation error, or the one "check
   * your email" answer for a new and a registered address alike (same page, same cookies; the
   * service mails the new user the link and the owner of a registered address a notice).
   */
  async function handleSignup(
    ctx: Context,
    action: string,
    loginUrl: string | undefined,
    continueUrl: string,
  ) {
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
    let created: { id: string } | undefined;
    try {
      ({ created } = await users.signUp({ email, password: body.password, ref: refCode }));
    } catch (e) {
      if (isAppError(e) && e.code !== 'INTERNAL') return show(e.userMessage, e.status);
      throw e;
    }
    ctx.cookies.set(REF_COOKIE, null, { path: '/' });
    ctx.cookies.set(FRESH_COOKIE, `${created?.id ?? randomUUID()}.${Date.now()}`, {
      signed: true,
      httpOnly: true,
      sameSite: 'lax',
      secure: ctx.secure,
      path: '/',
      maxAge: FRESH_MAX_AGE_MS,
    });
    sendHtml(
      ctx,
      messagePage({
        title: CHECK_EMAIL_TITLE,
        message: CHECK_EMAIL_MESSAGE,
        linkText: 'I have confirmed my email',
        linkUrl: continueUrl,
      }),
    );
  }

  router.post('/interaction/:uid/signup', async (ctx) => {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const urls = interactionUrls(details.uid);
    // After confirming, the sign-in step finds the fresh cookie and needs no password.
    await handleSignup(ctx, urls.signup, urls.login, urls.login);
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

  // Outside an authorization request the app starts its own sign-in; once the address is
  // confirmed, the fresh cookie signs the new user in there without retyping.
  router.post('/signup', (ctx) => handleSignup(ctx, '/signup', d.appUrl, d.appUrl));

  const safeBack = (value: unknown) => {
    const s = str(value);
    return /^\/interaction\/[\w-]+$/.test(s) ? s : undefined;
  };

  // The `?token=` hand-off's middle leg: back to the web app tab that started it, with a code.
  router.get('/handoff', async (ctx) => {
    const back = await d.handoff.start(ctx);
    if (!back) {
      return sendHtml(ctx, errorPage({ message: 'This sign-in link is not valid.', appUrl: d.appUrl }), 400);
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 303;
    ctx.redirect(back);
  });

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
      await limits.clearAccount(email);
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
