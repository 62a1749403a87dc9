import { ENDPOINTS } from '@pm/contracts';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import { createApiClient, REQUEST_TIMEOUT_MS } from '../../lib/api/transport.ts';

/** Password reset state (rules §4): nothing asked yet, e-mail sent, or the request failed. */
export type PasswordResetState = 'NONE' | 'SUCCESS' | 'FAILED';

export const PASSWORD_CHANGE_SENT_TEXT = 'Password change email has been sent';
export const PASSWORD_CHANGE_FAILED_TEXT = 'Password change failed, please try again or contact support';
export const PASSWORD_SNACKBAR_MS = 2_000;

/**
 * Asks the identity service to e-mail a password change link: `POST {issuer}/dbconnections/change_code`
 * with `{ email }` (the contract's `requestPasswordReset`, no sign-in needed). Resolves to the new
 * reset state; never throws, and raises no global state: the caller shows the outcome.
 */
export async function requestPasswordChange(
  issuer: string,
  email: string,
  fetchFn: typeof fetch = fetch,
  timeoutMs = REQUEST_TIMEOUT_MS,
): Promise<PasswordResetState> {
  const identity = createApiClient({
    baseUrl: issuer,
    getAccessToken: () => null,
    onFailure: () => {},
    fetchFn,
    timeoutMs,
  });
  try {
    await callEndpoint(identity, ENDPOINTS.requestPasswordReset, { body: { email } });
    return 'SUCCESS';
  } catch {
    return 'FAILED';
  }
}
