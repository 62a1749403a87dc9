import { ZErrorBody } from '../common.ts';
import { defineEndpoint, type Endpoint } from '../endpoint.ts';
import {
  ZHandoffRedeemBody,
  ZHandoffToken,
  ZIdentityEmailBody,
  ZIdentityUserInfo,
  ZPasswordResetSent,
  ZUserBlockBody,
  ZUserBlockResult,
  ZUserChangeResult,
  ZUserPasswordBody,
  ZUserResetLinkBody,
  ZUserTwoFactorResetBody,
  ZVerificationEmailSent,
} from '../identity.ts';

/**
 * A staff call's errors: bad input or unknown user, no valid token, not staff (or a staff target),
 * each in the market API's error body.
 */
const staffErrors = { 400: ZErrorBody, 401: ZErrorBody, 403: ZErrorBody };

/** One staff operation of the identity host: a bearer token of this issuer with both staff permissions. */
const adminOp = <const E extends Omit<Endpoint, 'api' | 'tags' | 'visibility' | 'method'>>(e: E) =>
  defineEndpoint({ ...e, method: 'POST', api: 'identity', tags: ['identity'], visibility: 'staff' });

/**
 * The identity host's JSON API (rules §7): the admin auth API under `/administator/user/` (the rules'
 * spelling, kept for outside callers; a declared trailing slash is optional) and the anonymous
 * reset-mail request. Served by `apps/identity`, not by the market API.
 */
export const IDENTITY_ENDPOINTS = {
  blockUser: adminOp({
    operationId: 'blockUser',
    path: '/administator/user/block/',
    summary: 'Block or unblock a user (`blocked` sets the state; without it the state toggles)',
    body: ZUserBlockBody,
    response: { 200: ZUserBlockResult, ...staffErrors },
  }),
  getUserInfo: adminOp({
    operationId: 'getUserInfo',
    path: '/administator/user/info/',
    summary: "A user's sign-in data by e-mail address",
    body: ZIdentityEmailBody,
    response: { 200: ZIdentityUserInfo, ...staffErrors },
  }),
  setUserPassword: adminOp({
    operationId: 'setUserPassword',
    path: '/administator/user/password/change',
    summary: "Set a user's password: ends their sessions and mails them that support changed it",
    body: ZUserPasswordBody,
    response: { 200: ZUserChangeResult, ...staffErrors },
  }),
  mailUserResetLink: adminOp({
    operationId: 'mailUserResetLink',
    path: '/administator/user/password/reset-link',
    summary: 'Mail a user a password reset link (503 when the mail cannot be sent)',
    body: ZUserResetLinkBody,
    response: { 200: ZUserChangeResult, ...staffErrors, 503: ZErrorBody },
  }),
  resetUserTwoFactor: adminOp({
    operationId: 'resetUserTwoFactor',
    path: '/administator/user/two-factor/reset',
    summary: "Turn a user's two-factor sign-in off (they lost their phone and codes): ends their sessions",
    body: ZUserTwoFactorResetBody,
    response: { 200: ZUserChangeResult, ...staffErrors },
  }),
  redeemHandoff: defineEndpoint({
    operationId: 'redeemHandoff',
    method: 'POST',
    path: '/handoff/token',
    summary: "Redeem a `?token=` hand-off's one-time code with the starting tab's PKCE verifier",
    visibility: 'anonymous',
    api: 'identity',
    tags: ['identity'],
    body: ZHandoffRedeemBody,
    response: { 200: ZHandoffToken, 400: ZErrorBody },
  }),
  requestPasswordReset: defineEndpoint({
    operationId: 'requestPasswordReset',
    method: 'POST',
    path: '/dbconnections/change_code',
    summary: 'Mail a password reset link (the same text answer for an unknown address)',
    visibility: 'anonymous',
    api: 'identity',
    tags: ['identity'],
    body: ZIdentityEmailBody,
    response: { 200: ZPasswordResetSent, 400: ZErrorBody, 429: ZErrorBody },
  }),
  resendVerificationEmail: defineEndpoint({
    operationId: 'resendVerificationEmail',
    method: 'POST',
    path: '/dbconnections/verification_email',
    summary:
      "Mail the signed-in user a new link that confirms their address (the app's banner; a few an hour)",
    visibility: 'customer',
    api: 'identity',
    tags: ['identity'],
    response: { 200: ZVerificationEmailSent, 401: ZErrorBody, 429: ZErrorBody, 503: ZErrorBody },
  }),
} as const satisfies Record<string, Endpoint>;
