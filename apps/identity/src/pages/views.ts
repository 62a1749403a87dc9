import { html, raw, type SafeHtml } from './html.ts';

export const PRODUCT_NAME = 'ProxyMarket';

interface LayoutOptions {
  title: string;
  body: SafeHtml;
}

/**
 * The page shell: one same-origin stylesheet and the favicon, no inline script or style, so
 * `script-src 'self'` holds (only the app's own sign-out page loads a same-origin script).
 */
export function layout({ title, body }: LayoutOptions): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · ${PRODUCT_NAME}</title>
<link rel="stylesheet" href="/assets/style.css">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
</head>
<body>
<main class="card">
<p class="brand">${PRODUCT_NAME}</p>
<h1>${title}</h1>
${body}
</main>
</body>
</html>`.value;
}

function csrfField(csrf: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${csrf}">`;
}

function errorBox(error: string | undefined): SafeHtml {
  return error ? html`<p class="error" role="alert">${error}</p>` : html``;
}

function noticeBox(notice: string | undefined): SafeHtml {
  return notice ? html`<p class="notice" role="status">${notice}</p>` : html``;
}

export interface FormPageOptions {
  action: string;
  csrf: string;
  error?: string | undefined;
  notice?: string | undefined;
  email?: string | undefined;
}

export function loginPage(o: FormPageOptions & { signupUrl: string; forgotUrl: string }): string {
  return layout({
    title: 'Sign in',
    body: html`${noticeBox(o.notice)}${errorBox(o.error)}
<form method="post" action="${o.action}" novalidate>
${csrfField(o.csrf)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${o.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<p class="links"><a href="${o.forgotUrl}">Forgot password?</a></p>
<p class="links">No account yet? <a href="${o.signupUrl}">Create one</a></p>`,
  });
}

export function signupPage(o: FormPageOptions & { loginUrl: string | undefined; refCode: string }): string {
  return layout({
    title: 'Create your account',
    body: html`${errorBox(o.error)}
<form method="post" action="${o.action}" novalidate>
${csrfField(o.csrf)}
<input type="hidden" name="ref" value="${o.refCode}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email" required autofocus value="${o.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="8" maxlength="128" required>
<p class="hint">At least 8 characters.</p>
${o.refCode ? html`<p class="hint">Invited with code <strong>${o.refCode}</strong>.</p>` : ''}
<button type="submit">Create account</button>
</form>
${o.loginUrl ? html`<p class="links">Already have an account? <a href="${o.loginUrl}">Sign in</a></p>` : ''}`,
  });
}

export function forgotPage(o: FormPageOptions & { backUrl: string | undefined }): string {
  return layout({
    title: 'Forgot password',
    body: html`${noticeBox(o.notice)}${errorBox(o.error)}
<p>Enter your email and we will send you a link to choose a new password.</p>
<form method="post" action="${o.action}" novalidate>
${csrfField(o.csrf)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email" required autofocus value="${o.email ?? ''}">
<button type="submit">Send reset link</button>
</form>
${o.backUrl ? html`<p class="links"><a href="${o.backUrl}">Back to sign in</a></p>` : ''}`,
  });
}

export function resetPage(o: FormPageOptions & { token: string }): string {
  return layout({
    title: 'Choose a new password',
    body: html`${errorBox(o.error)}
<form method="post" action="${o.action}" novalidate>
${csrfField(o.csrf)}
<input type="hidden" name="token" value="${o.token}">
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="8" maxlength="128" required autofocus>
<p class="hint">At least 8 characters.</p>
<button type="submit">Set password</button>
</form>`,
  });
}

/** A page with one message and a link onward (verified, reset done, link invalid, signed out...). */
export function messagePage(o: {
  title: string;
  message: string;
  linkText: string;
  linkUrl: string;
}): string {
  return layout({
    title: o.title,
    body: html`<p>${o.message}</p><p class="links"><a class="button" href="${o.linkUrl}">${o.linkText}</a></p>`,
  });
}

export function logoutConfirmPage(o: { form: string; appUrl: string }): string {
  // `form` is oidc-provider's own hidden-field form (it carries the xsrf token); the buttons submit it.
  return layout({
    title: 'Sign out',
    body: html`<p>Do you want to sign out?</p>
${raw(o.form)}
<button type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>
<p class="links"><a href="${o.appUrl}">No, back to the app</a></p>`,
  });
}

/**
 * Sign-out the app itself asked for (its ID token came with the request): no question, the form
 * (oidc-provider's, with its xsrf token) is posted at once with `logout=yes`, which ends the whole
 * session at the sign-in host. Without JavaScript the visitor presses Continue.
 */
export function logoutSubmitPage(o: { form: string }): string {
  return layout({
    title: 'Signing out',
    body: html`<p>Signing you out…</p>
${raw(o.form)}
<input type="hidden" name="logout" value="yes" form="op.logoutForm">
<noscript><button type="submit" form="op.logoutForm">Continue</button></noscript>
<script src="/assets/logout.js"></script>`,
  });
}

export function errorPage(o: { message: string; appUrl: string }): string {
  return messagePage({
    title: 'Something went wrong',
    message: o.message,
    linkText: 'Back to the app',
    linkUrl: o.appUrl,
  });
}
