import assert from 'node:assert/strict';
import { it } from 'node:test';
import { inviteLinkFor } from './inviteLink.ts';

it('builds the sign-up link with the referral code', () => {
  assert.equal(inviteLinkFor('https://auth.example', 'AB12cd'), 'https://auth.example/signup?ref=AB12cd');
  assert.equal(inviteLinkFor('https://auth.example/', 'a b'), 'https://auth.example/signup?ref=a%20b');
});
