import type { Enrolment } from '../two-factor.service.ts';
import { html, raw, type SafeHtml } from './html.ts';
import { layout } from './views.ts';

interface StepOptions {
  action: string;
  csrf: string;
  error?: string | undefined;
}

function csrfField(csrf: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${csrf}">`;
}

function errorBox(error: string | undefined): SafeHtml {
  return error ? html`<p class="error" role="alert">${error}</p>` : html``;
}

const codeInput = html`<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="20" required autofocus>`;

/** The sign-in's second step: a code from the app, or a recovery code. */
export function codePage(o: StepOptions & { backUrl: string }): string {
  return layout({
    title: 'Two-factor sign-in',
    body: html`${errorBox(o.error)}
<p>Enter the 6-digit code from your authenticator app.</p>
<form method="post" action="${o.action}" novalidate>
${csrfField(o.csrf)}
<label for="code">Code</label>
${codeInput}
<p class="hint">Lost your phone? Enter one of your recovery codes instead.</p>
<button type="submit">Verify</button>
</form>
<p class="links"><a href="${o.backUrl}">Sign in as someone else</a></p>`,
  });
}

/**
 * Enrolment: the QR code (inline SVG from our own encoder, no script), the secret to type in, and
 * the confirming code. `required` is the staff wording: no way on without it.
 */
export function enrolPage(o: StepOptions & { enrolment: Enrolment; required: boolean }): string {
  const why = o.required
    ? html`<p class="notice" role="status">Staff accounts must use two-factor sign-in. Set it up to continue.</p>`
    : html``;
  return layout({
    title: 'Turn on two-factor sign-in',
    body: html`${why}${errorBox(o.error)}
<p>Scan this QR code with an authenticator app (Google Authenticator, Authy, 1Password, Aegis…).</p>
<div class="qr" data-testid="totp-qr">${raw(o.enrolment.qrSvg)}</div>
<p class="hint">Or enter this key by hand:</p>
<p class="secret" data-testid="totp-secret">${o.enrolment.secret}</p>
<form method="post" action="${o.action}" novalidate>
${csrfField(o.csrf)}
<label for="code">Code from the app</label>
${codeInput}
<button type="submit">Turn on</button>
</form>`,
  });
}

/** The ten recovery codes, shown once, and the way on. */
export function recoveryCodesPage(o: StepOptions & { codes: string[] }): string {
  return layout({
    title: 'Save your recovery codes',
    body: html`<p class="notice" role="status">Two-factor sign-in is on.</p>
<p>Each code signs you in once if you lose your phone. Keep them somewhere safe: they are not shown again.</p>
<ul class="codes" data-testid="recovery-codes">${o.codes.map((c) => html`<li>${c}</li>`)}</ul>
<form method="post" action="${o.action}" novalidate>
${csrfField(o.csrf)}
<button type="submit">I saved them, continue</button>
</form>`,
  });
}

/** Two-factor settings after the sign-in: turn it on, or off with a code, or go on to the app. */
export function manageTwoFactorPage(
  o: StepOptions & { enabled: boolean; enrolUrl: string; disableAction: string; notice?: string | undefined },
): string {
  const notice = o.notice ? html`<p class="notice" role="status">${o.notice}</p>` : html``;
  const body = o.enabled
    ? html`<p>Two-factor sign-in is <strong>on</strong>: signing in asks for a code from your authenticator app.</p>
<form method="post" action="${o.disableAction}" novalidate>
${csrfField(o.csrf)}
<label for="code">Code, to turn it off</label>
${codeInput}
<p class="hint">A new code from the app (not the one you just signed in with), or a recovery code.</p>
<button type="submit" class="secondary">Turn off</button>
</form>`
    : html`<p>Two-factor sign-in is <strong>off</strong>. With it on, signing in also asks for a code from an app on your phone.</p>
<p class="links"><a class="button" href="${o.enrolUrl}">Turn on</a></p>`;
  return layout({
    title: 'Two-factor sign-in',
    body: html`${notice}${errorBox(o.error)}${body}
<form method="post" action="${o.action}" novalidate>
${csrfField(o.csrf)}
<button type="submit" class="${o.enabled ? '' : 'secondary'}">Back to the app</button>
</form>`,
  });
}
