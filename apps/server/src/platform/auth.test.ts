/**
 * The auth hook's account reads, with stub dependencies: what a verified token costs per request
 * (rules §7; the account's state is read at most once per `blockCacheMs`).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AccountAccessState, createAuthHook, type Principal } from './auth.ts';

function hookWith(state: () => AccountAccessState) {
  const calls = { getAccess: 0, confirmEmail: 0 };
  const principal: Principal = {
    userId: 'u1',
    email: 'u1@example.test',
    refcode: null,
    permissions: [],
    isStaff: false,
    emailVerified: true,
  };
  const hook = createAuthHook({
    verifier: { verify: async () => principal },
    getAccess: async () => {
      calls.getAccess++;
      return state();
    },
    blockCacheMs: 60_000,
    confirmEmail: async () => {
      calls.confirmEmail++;
      return state().emailVerified === false;
    },
  });
  const request = () =>
    hook.call(
      undefined as never,
      {
        method: 'GET',
        is404: false,
        routeOptions: { config: { auth: 'user' } },
        headers: { authorization: 'Bearer a.b.c' },
      } as unknown as FastifyRequest,
      {} as FastifyReply,
    );
  return { calls, request };
}

test('a confirmed token of a user without an account reads and tries the account once per cached read', async () => {
  const { calls, request } = hookWith(() => ({ blocked: false, tokensValidAfterMs: 0 }));
  for (let i = 0; i < 5; i++) await request();
  assert.deepEqual(calls, { getAccess: 1, confirmEmail: 1 });
});

test('a confirmed token marks a stored unconfirmed account once, then the cache holds', async () => {
  let verified = false;
  const { calls, request } = hookWith(() => ({
    blocked: false,
    tokensValidAfterMs: 0,
    emailVerified: verified,
  }));
  await request();
  assert.deepEqual(calls, { getAccess: 1, confirmEmail: 1 });
  verified = true;
  for (let i = 0; i < 4; i++) await request();
  assert.deepEqual(calls, { getAccess: 2, confirmEmail: 1 });
});
