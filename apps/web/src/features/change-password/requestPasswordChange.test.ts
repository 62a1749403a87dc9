import assert from 'node:assert/strict';
import { it } from 'node:test';
import { requestPasswordChange } from './requestPasswordChange.ts';

it('posts the email to the issuer and maps the outcome to a reset state', async () => {
  const seen: Array<{ url: string; body: unknown }> = [];
  const answer = (status: number) =>
    (async (url: URL | string, init: RequestInit) => {
      seen.push({ url: String(url), body: JSON.parse(String(init.body)) });
      return new Response("We've just sent you an email to reset your password.", { status });
    }) as unknown as typeof fetch;
  assert.equal(await requestPasswordChange('https://auth.example/', 'a@b.c', answer(200)), 'SUCCESS');
  assert.deepEqual(seen[0], {
    url: 'https://auth.example/dbconnections/change_code',
    body: { email: 'a@b.c' },
  });
  assert.equal(await requestPasswordChange('https://auth.example', 'a@b.c', answer(429)), 'FAILED');
  const down = (async () => {
    throw new TypeError('fetch failed');
  }) as unknown as typeof fetch;
  assert.equal(await requestPasswordChange('https://auth.example', 'a@b.c', down), 'FAILED');
});
