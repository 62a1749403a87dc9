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
    text: `Welcome to ${PRODUCT_NAME}!\n\nConfirm your email address to finish creating your account:\n${link}\n\nIf you did not create an account, ignore this email and do not open the link.\n\n${appUrl}\n`,
    html: html`<p>Welcome to ${PRODUCT_NAME}!</p><p><a href="${link}">Confirm your email address</a> to finish creating your account.</p>
<p>If you did not create an account, ignore this email and do not open the link.</p>`.value,
  };
}

/**
 * Sent instead of a second account when someone signs up with a registered address: the sign-up
 * page answers the same either way, so only the address's owner learns that it has an account.
 */
export function signupAttemptMail(to: string, forgotUrl: string, appUrl: string): Mail {
  return {
    to,
    subject: `Someone tried to sign up to ${PRODUCT_NAME} with your email`,
    text: `Someone just tried to create a ${PRODUCT_NAME} account with this email address, but you already have one.\n\nIf it was you, sign in instead:\n${appUrl}\n\nForgot your password? Reset it here:\n${forgotUrl}\n\nIf it wasn't you, ignore this email; your account has not changed.\n`,
    html: html`<p>Someone just tried to create a ${PRODUCT_NAME} account with this email address, but you already have one.</p>
<p>If it was you, <a href="${appUrl}">sign in</a> instead. Forgot your password? <a href="${forgotUrl}">Reset it</a>.</p>
<p>If it wasn't you, ignore this email; your account has not changed.</p>`.value,
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
