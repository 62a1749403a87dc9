import type Router from '@koa/router';
import { isAppError } from '@pm/contracts';
import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import { csrfToken, isCsrfValid, readBody, sendHtml } from '../http.ts';
import { type Limits, TOO_MANY } from '../limits.ts';
import { hasTwoFactor, TWO_FACTOR_MSG, type TwoFactorService } from '../two-factor.service.ts';
import type { UserRow } from '../users.repository.ts';
import type { UsersService } from '../users.service.ts';
import { codePage, enrolPage, manageTwoFactorPage, recoveryCodesPage } from './two-factor.views.ts';

/**
 * Where a sign-in stands between its password and its end, kept in a signed cookie bound to the
 * interaction: `pwd` (the password was right, a code or the staff enrolment is due) or `done` (both
 * factors passed, or the account needs none: the settings page and the way on are open).
 */
type Stage = 'pwd' | 'done';
const STAGE_COOKIE = 'pm_2fa';
const STAGE_TTL_MS = 10 * 60 * 1000;
const STAFF_MUST_KEEP = 'Staff accounts must keep two-factor sign-in on.';
const TURNED_OFF = 'Two-factor sign-in is off.';

export interface TwoFactorStepDeps {
  provider: Provider;
  users: UsersService;
  twoFactor: TwoFactorService;
  limits: Limits;
  /** Ends the interaction signed in (`amr` as the factors used). */
  finishLogin(ctx: Context, accountId: string, amr: string[]): Promise<void>;
}

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/**
 * The sign-in's second factor as interaction steps of oidc-provider: the code after the password,
 * the enrolment a staff account must pass before it gets anywhere, and the settings page the web
 * app opens with `two_factor=manage` (turn on with a QR code and a confirming code, ten recovery
 * codes shown once; turn off with a code).
 */
export function createTwoFactorSteps(d: TwoFactorStepDeps) {
  const urls = (uid: string) => ({
    code: `/interaction/${uid}/otp`,
    enrol: `/interaction/${uid}/enrol`,
    disable: `/interaction/${uid}/disable`,
    proceed: `/interaction/${uid}/continue`,
    login: `/interaction/${uid}`,
  });
  const isManage = (details: Details) => details.params.two_factor === 'manage';

  function setStage(ctx: Context, uid: string, userId: string, stage: Stage): void {
    ctx.cookies.set(STAGE_COOKIE, `${uid}.${userId}.${stage}.${Date.now() + STAGE_TTL_MS}`, {
      signed: true,
      httpOnly: true,
      sameSite: 'lax',
      secure: ctx.secure,
      path: '/interaction/',
      maxAge: STAGE_TTL_MS,
    });
  }

  /** The user and stage of this interaction's cookie; undefined when absent, expired or another one's. */
  async function readStage(ctx: Context, uid: string): Promise<{ user: UserRow; stage: Stage } | undefined> {
    const [cUid, userId, stage, until] = (ctx.cookies.get(STAGE_COOKIE, { signed: true }) ?? '').split('.');
    if (cUid !== uid || !userId || Number(until) < Date.now()) return undefined;
    if (stage !== 'pwd' && stage !== 'done') return undefined;
    const user = await d.users.findById(userId);
    // A password change, block or two-factor change since this step was reached voids it.
    const setAtMs = Number(until) - STAGE_TTL_MS;
    if (!user || user.blocked || setAtMs < user.tokensValidAfter.getTime()) return undefined;
    return { user, stage };
  }

  async function complete(ctx: Context, user: UserRow, amr: string[]): Promise<void> {
    ctx.cookies.set(STAGE_COOKIE, null, { signed: true, path: '/interaction/' });
    // Recorded only now: the last sign-in's IP is exempt from the slow-down, so a right password
    // without the code must not make it so.
    await d.users.recordLogin(user.id, ctx.ip);
    await d.finishLogin(ctx, user.id, amr);
  }

  async function showManage(
    ctx: Context,
    uid: string,
    user: UserRow,
    extra: { error?: string; notice?: string } = {},
  ) {
    const u = urls(uid);
    sendHtml(
      ctx,
      manageTwoFactorPage({
        action: u.proceed,
        csrf: csrfToken(ctx),
        enabled: hasTwoFactor(user),
        enrolUrl: u.enrol,
        disableAction: u.disable,
        ...extra,
      }),
      extra.error ? 400 : 200,
    );
  }

  async function showEnrol(ctx: Context, uid: string, user: UserRow, error?: string) {
    const enrolment = await d.twoFactor.startEnrolment(user);
    const required = await d.users.isStaffAccount(user);
    sendHtml(
      ctx,
      enrolPage({ action: urls(uid).enrol, csrf: csrfToken(ctx), enrolment, required, error }),
      error ? 400 : 200,
    );
  }

  /** Takes the code attempt's points, checks it; false (and the page answered) when refused. */
  async function checkCode(
    ctx: Context,
    user: UserRow,
    code: unknown,
    onError: (e: string, s: number) => void,
  ) {
    const knownIp = user.lastLoginIp != null && user.lastLoginIp === ctx.ip;
    const admission = await d.limits.beginCode(user.id, ctx.ip, { knownIp });
    if (!admission.ok) {
      ctx.set('Retry-After', String(admission.retryAfterS));
      onError(TOO_MANY, 429);
      return false;
    }
    if (!(await d.twoFactor.verifyCode(user, code))) {
      await admission.ticket.failed();
      onError(TWO_FACTOR_MSG.wrongCode, 400);
      return false;
    }
    await admission.ticket.succeeded();
    return true;
  }

  return {
    /**
     * After a right password: the code page for an account with two-factor sign-in, enrolment for
     * a staff account without it, the settings page when the app asked for it, else signed in.
     */
    async afterPassword(ctx: Context, details: Details, user: UserRow): Promise<void> {
      const uid = details.uid;
      if (hasTwoFactor(user)) {
        setStage(ctx, uid, user.id, 'pwd');
        return sendHtml(
          ctx,
          codePage({ action: urls(uid).code, csrf: csrfToken(ctx), backUrl: urls(uid).login }),
        );
      }
      if (await d.users.isStaffAccount(user)) {
        setStage(ctx, uid, user.id, 'pwd');
        ctx.status = 303;
        return ctx.redirect(urls(uid).enrol);
      }
      if (isManage(details)) {
        setStage(ctx, uid, user.id, 'done');
        return showManage(ctx, uid, user);
      }
      return complete(ctx, user, ['pwd']);
    },

    register(router: Router): void {
      router.post('/interaction/:uid/otp', async (ctx) => {
        const details = await d.provider.interactionDetails(ctx.req, ctx.res);
        const body = await readBody(ctx);
        const u = urls(details.uid);
        const show = (error: string, status: number) =>
          sendHtml(ctx, codePage({ action: u.code, csrf: csrfToken(ctx), backUrl: u.login, error }), status);
        if (!isCsrfValid(ctx, body)) return show('Your session expired. Please try again.', 403);
        const state = await readStage(ctx, details.uid);
        if (state?.stage !== 'pwd' || !hasTwoFactor(state.user)) {
          ctx.status = 303;
          return ctx.redirect(u.login);
        }
        if (!(await checkCode(ctx, state.user, body.code, show))) return;
        if (isManage(details)) {
          setStage(ctx, details.uid, state.user.id, 'done');
          return showManage(ctx, details.uid, state.user);
        }
        return complete(ctx, state.user, ['pwd', 'otp']);
      });

      router.get('/interaction/:uid/enrol', async (ctx) => {
        const details = await d.provider.interactionDetails(ctx.req, ctx.res);
        const state = await readStage(ctx, details.uid);
        if (!state || hasTwoFactor(state.user)) {
          ctx.status = 303;
          return ctx.redirect(urls(details.uid).login);
        }
        return showEnrol(ctx, details.uid, state.user);
      });

      router.post('/interaction/:uid/enrol', async (ctx) => {
        const details = await d.provider.interactionDetails(ctx.req, ctx.res);
        const body = await readBody(ctx);
        const state = await readStage(ctx, details.uid);
        if (!state || hasTwoFactor(state.user) || !isCsrfValid(ctx, body)) {
          ctx.status = 303;
          return ctx.redirect(urls(details.uid).login);
        }
        let codes: string[];
        try {
          codes = await d.twoFactor.confirmEnrolment(state.user.id, body.code, details.uid);
        } catch (e) {
          if (isAppError(e) && e.code === 'VALIDATION_FAILED') {
            return showEnrol(ctx, details.uid, state.user, e.userMessage);
          }
          throw e;
        }
        setStage(ctx, details.uid, state.user.id, 'done');
        sendHtml(ctx, recoveryCodesPage({ action: urls(details.uid).proceed, csrf: csrfToken(ctx), codes }));
      });

      router.post('/interaction/:uid/disable', async (ctx) => {
        const details = await d.provider.interactionDetails(ctx.req, ctx.res);
        const body = await readBody(ctx);
        const state = await readStage(ctx, details.uid);
        if (state?.stage !== 'done' || !isCsrfValid(ctx, body)) {
          ctx.status = 303;
          return ctx.redirect(urls(details.uid).login);
        }
        const user = state.user;
        const refuse = (error: string) => showManage(ctx, details.uid, user, { error });
        if (await d.users.isStaffAccount(user)) return refuse(STAFF_MUST_KEEP);
        if (!hasTwoFactor(user)) return showManage(ctx, details.uid, user);
        const admission = await d.limits.beginCode(user.id, ctx.ip);
        if (!admission.ok) {
          ctx.set('Retry-After', String(admission.retryAfterS));
          return refuse(TOO_MANY);
        }
        try {
          await d.twoFactor.disable(user.id, body.code, details.uid);
        } catch (e) {
          if (isAppError(e) && e.code === 'VALIDATION_FAILED') {
            await admission.ticket.failed();
            return refuse(e.userMessage);
          }
          throw e;
        }
        await admission.ticket.succeeded();
        const after = (await d.users.findById(user.id)) ?? user;
        return showManage(ctx, details.uid, after, { notice: TURNED_OFF });
      });

      router.post('/interaction/:uid/continue', async (ctx) => {
        const details = await d.provider.interactionDetails(ctx.req, ctx.res);
        const body = await readBody(ctx);
        const state = await readStage(ctx, details.uid);
        if (state?.stage !== 'done' || !isCsrfValid(ctx, body)) {
          ctx.status = 303;
          return ctx.redirect(urls(details.uid).login);
        }
        if (!hasTwoFactor(state.user) && (await d.users.isStaffAccount(state.user))) {
          ctx.status = 303;
          return ctx.redirect(urls(details.uid).enrol);
        }
        return complete(ctx, state.user, hasTwoFactor(state.user) ? ['pwd', 'otp'] : ['pwd']);
      });
    },
  };
}
