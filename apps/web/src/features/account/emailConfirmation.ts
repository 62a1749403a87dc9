/**
 * The unconfirmed-address banner's rules and calls (issue 36 item 7): the sign-in host mails a new
 * link (`resendVerificationEmail`, a few an hour), and what each outcome says. Pure but for the
 * one call, so Node tests it.
 */
import { ENDPOINTS } from '@pm/contracts';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import { createApiClient, isApiError, REQUEST_TIMEOUT_MS } from '../../lib/api/transport.ts';

export const CONFIRM_EMAIL_TITLE = 'Confirm your email address';
/** The banner's text for `email`. */
export const confirmEmailText = (email: string): string =>
  `Open the link we sent to ${email} to finish creating your account. Until then you can look around, but not add funds or buy.`;

/** True for the server's refusal of an unconfirmed address (403 `emailNotConfirmed`). */
export function isEmailNotConfirmed(e: unknown): boolean {
  if (!isApiError(e) || e.status !== 403) return false;
  const body = e.body as { errorCode?: unknown } | null | undefined;
  return typeof body === 'object' && body !== null && body.errorCode === 'emailNotConfirmed';
}

/** How a resend ended. */
export type ResendOutcome = 'SENT' | 'ALREADY_CONFIRMED' | 'RATE_LIMITED' | 'FAILED';

/** The toast of each outcome, and whether it is an error. */
export function resendToastOf(
  outcome: ResendOutcome,
  email: string,
): { message: string; severity: 'success' | 'error' } {
  switch (outcome) {
    case 'SENT':
      return {
        message: `We sent a new link to ${email}; the older ones no longer work.`,
        severity: 'success',
      };
    case 'ALREADY_CONFIRMED':
      return { message: 'Your address is already confirmed.', severity: 'success' };
    case 'RATE_LIMITED':
      return { message: 'You asked for several links already: try again in an hour.', severity: 'error' };
    default:
      return { message: 'The link could not be sent, try again later.', severity: 'error' };
  }
}

/** The outcome of the sign-in host's answer (status null: no answer). */
export function resendOutcomeOf(status: number | null, sent?: boolean): ResendOutcome {
  if (status === 200) return sent === false ? 'ALREADY_CONFIRMED' : 'SENT';
  if (status === 429) return 'RATE_LIMITED';
  return 'FAILED';
}

/**
 * Asks the sign-in host to mail the signed-in user a new confirmation link
 * (`POST {issuer}/dbconnections/verification_email` with the access token). Never throws and
 * raises no global state: the banner shows the outcome.
 */
export async function resendConfirmation(
  issuer: string,
  accessToken: string | null,
  fetchFn: typeof fetch = fetch,
): Promise<ResendOutcome> {
  const identity = createApiClient({
    baseUrl: issuer,
    getAccessToken: () => accessToken,
    onFailure: () => {},
    fetchFn,
    timeoutMs: REQUEST_TIMEOUT_MS,
  });
  try {
    const answer = await callEndpoint(identity, ENDPOINTS.resendVerificationEmail);
    return resendOutcomeOf(200, answer.sent);
  } catch (e) {
    return resendOutcomeOf(isApiError(e) ? e.status : null);
  }
}
