import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLimits, LIMITS } from './limits.ts';

test('ten failures lock the (email, IP) pair; a success before that resets the count', async () => {
  const limits = createLimits();
  for (let i = 0; i < LIMITS.failsPerEmailIp.points - 1; i++)
    await limits.loginFailed('a@x.test', '10.0.0.1');
  assert.equal(await limits.canTryLogin('a@x.test', '10.0.0.1'), true);
  await limits.loginSucceeded('a@x.test', '10.0.0.1');
  for (let i = 0; i < LIMITS.failsPerEmailIp.points; i++) await limits.loginFailed('a@x.test', '10.0.0.1');
  assert.equal(await limits.canTryLogin('a@x.test', '10.0.0.1'), false);
  // Another IP, or another email, is not locked out by someone else's failures.
  assert.equal(await limits.canTryLogin('a@x.test', '10.0.0.2'), true);
  assert.equal(await limits.canTryLogin('b@x.test', '10.0.0.1'), true);
});

test('one IP failing across many emails hits the daily per-IP limit', async () => {
  const limits = createLimits();
  for (let i = 0; i < LIMITS.failsPerIpDay.points; i++)
    await limits.loginFailed(`user${i}@x.test`, '10.0.0.9');
  assert.equal(await limits.canTryLogin('fresh@x.test', '10.0.0.9'), false);
});

test('sign-up and reset mails are limited per email and per IP', async () => {
  const limits = createLimits();
  for (let i = 0; i < LIMITS.signupPerEmail.points; i++) {
    assert.equal(await limits.takeSignup('s@x.test', `10.1.0.${i}`), true);
  }
  assert.equal(await limits.takeSignup('s@x.test', '10.1.1.1'), false);
  for (let i = 0; i < LIMITS.signupPerIp.points; i++) await limits.takeSignup(`n${i}@x.test`, '10.2.0.1');
  assert.equal(await limits.takeSignup('other@x.test', '10.2.0.1'), false);
  for (let i = 0; i < LIMITS.resetPerEmail.points; i++) await limits.takeReset('r@x.test', `10.3.0.${i}`);
  assert.equal(await limits.takeReset('r@x.test', '10.3.1.1'), false);
});

test('limits can be overridden per instance', async () => {
  const limits = createLimits({ signupPerIp: { points: 1, duration: 60 } });
  assert.equal(await limits.takeSignup('one@x.test', '10.4.0.1'), true);
  assert.equal(await limits.takeSignup('two@x.test', '10.4.0.1'), false);
});
