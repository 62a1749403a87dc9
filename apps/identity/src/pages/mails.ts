import { html } from './html.ts';
import { PRODUCT_NAME } from './views.ts';

interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export function resetMail(to: string, link: string, appUrl: string): Mail {
  return {
    to,
    subject: `Reset your ${PRODUCT_NAME} password`,
    text: `Someone asked to reset the password of your ${PRODUCT_NAME} account.\n\nChoose a new password here (the link works once, for 30 minutes):\n${link}\n\nIf it wasn't you, ignore this email; your password stays the same.\n\n${appUrl}\n`,
    html: html`<p>Someone asked to reset the password of your ${PRODUCT_NAME} account.</p>
<p><a href="${link}">Choose a new password</a> (the link works once, for 30 minutes).</p>
<p>If it wasn't you, ignore this email; your password stays the same.</p>`.value,
  };
}

export function verifyMail(to: string, link: string, appUrl: string): Mail {
  return {
    to,
    subject: `Confirm your email for ${PRODUCT_NAME}`,
    text: `Welcome to ${PRODUCT_NAME}!\n\nConfirm your email address:\n${link}\n\n${appUrl}\n`,
    html: html`<p>Welcome to ${PRODUCT_NAME}!</p><p><a href="${link}">Confirm your email address</a></p>`
      .value,
  };
}

/** Sent when staff set the password: says so (never the password) and how to choose one's own. */
export function passwordSetByStaffMail(to: string, forgotUrl: string, appUrl: string): Mail {
  return {
    to,
    subject: `Your ${PRODUCT_NAME} password was changed by support`,
    text: `Our support team has set a new password for your ${PRODUCT_NAME} account, and every device signed in to it was signed out.\n\nTo choose your own password, use "Forgot password" here:\n${forgotUrl}\n\nIf you did not ask support for this, reply to this email.\n\n${appUrl}\n`,
    html: html`<p>Our support team has set a new password for your ${PRODUCT_NAME} account, and every device signed in to it was signed out.</p>
<p>To choose your own password, use <a href="${forgotUrl}">Forgot password</a>.</p>
<p>If you did not ask support for this, reply to this email.</p>`.value,
  };
}
