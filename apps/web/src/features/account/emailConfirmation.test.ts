import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ApiError } from '../../lib/api/transport.ts';
import {
  confirmEmailText,
  isEmailNotConfirmed,
  resendConfirmation,
  resendOutcomeOf,
  resendToastOf,
} from './emailConfirmation.ts';

it('says what the banner offers and each outcome of a resend', () => {
  assert.match(confirmEmailText('me@example.com'), /link we sent to me@example\.com .* not add funds or buy/);
  assert.equal(resendOutcomeOf(200, true), 'SENT');
  assert.equal(resendOutcomeOf(200, false), 'ALREADY_CONFIRMED');
  assert.equal(resendOutcomeOf(429), 'RATE_LIMITED');
  assert.equal(resendOutcomeOf(401), 'FAILED');
  assert.equal(resendOutcomeOf(null), 'FAILED');
  assert.equal(resendToastOf('SENT', 'me@example.com').severity, 'success');
  assert.match(resendToastOf('RATE_LIMITED', 'me@example.com').message, /try again in an hour/);
});

it('calls the sign-in host with the access token and reads its answer', async () => {
  const seen: { url: string; auth: string | null }[] = [];
  const answer = (status: number, body: unknown) => async (input: RequestInfo | URL, init?: RequestInit) => {
    seen.push({ url: String(input), auth: new Headers(init?.headers).get('authorization') });
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
  const issuer = 'https://id.example.test';
  assert.equal(
    await resendConfirmation(issuer, 'tok', answer(200, { sent: true, email: 'a@b.c' }) as typeof fetch),
    'SENT',
  );
  assert.deepEqual(seen[0], { url: `${issuer}/dbconnections/verification_email`, auth: 'Bearer tok' });
  assert.equal(
    await resendConfirmation(issuer, 'tok', answer(429, { error: 'Too many attempts' }) as typeof fetch),
    'RATE_LIMITED',
  );
  const down = (async () => {
    throw new TypeError('fetch failed');
  }) as typeof fetch;
  assert.equal(await resendConfirmation(issuer, 'tok', down), 'FAILED');
});

it("tells the server's refusal of an unconfirmed address from other 403s", () => {
  assert.equal(isEmailNotConfirmed(new ApiError(403, { errorCode: 'emailNotConfirmed' }, 'none', 'x')), true);
  assert.equal(isEmailNotConfirmed(new ApiError(403, { errorCode: 'accountBlocked' }, 'none', 'x')), false);
  assert.equal(
    isEmailNotConfirmed(new ApiError(409, { errorCode: 'emailNotConfirmed' }, 'none', 'x')),
    false,
  );
  assert.equal(isEmailNotConfirmed(new Error('x')), false);
});
