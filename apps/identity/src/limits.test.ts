import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ACCOUNT_SLOWDOWN, createLimits, LIMITS, type Limits } from './limits.ts';

/** Admits one attempt and reports it as failed; true when it was admitted. */
async function failOnce(limits: Limits, email: string, ip: string): Promise<boolean> {
  const a = await limits.beginLogin(email, ip);
  if (!a.ok) return false;
  await a.ticket.failed();
  return true;
}

const noSlowdown = { account: { freeFailures: 1_000_000 } };

test('ten failures lock the (email, IP) pair; a success before that resets the count', async () => {
  const limits = createLimits(noSlowdown);
  for (let i = 0; i < LIMITS.failsPerEmailIp.points - 1; i++)
    assert.equal(await failOnce(limits, 'a@x.test', '10.0.0.1'), true);
  const ok = await limits.beginLogin('a@x.test', '10.0.0.1');
  assert.ok(ok.ok);
  await ok.ticket.succeeded();
  for (let i = 0; i < LIMITS.failsPerEmailIp.points; i++)
    assert.equal(await failOnce(limits, 'a@x.test', '10.0.0.1'), true, `attempt ${i + 1}`);
  const refused = await limits.beginLogin('a@x.test', '10.0.0.1');
  assert.equal(refused.ok, false);
  assert.ok(!refused.ok && refused.retryAfterS > 0);
  // Another IP, or another email, is not locked out by someone else's failures.
  assert.equal(await failOnce(limits, 'a@x.test', '10.0.0.2'), true);
  assert.equal(await failOnce(limits, 'b@x.test', '10.0.0.1'), true);
});

test('one IP failing across many emails hits the daily per-IP limit', async () => {
  const limits = createLimits();
  for (let i = 0; i < LIMITS.failsPerIpDay.points; i++)
    assert.equal(await failOnce(limits, `user${i}@x.test`, '10.0.0.9'), true);
  assert.equal(await failOnce(limits, 'fresh@x.test', '10.0.0.9'), false);
});

test('40 parallel attempts from one IP: at most the limit is admitted, before any password check', async () => {
  const limits = createLimits(noSlowdown);
  const admitted = await Promise.all(
    Array.from({ length: 40 }, () => limits.beginLogin('p@x.test', '10.0.1.1')),
  );
  assert.equal(admitted.filter((a) => a.ok).length, LIMITS.failsPerEmailIp.points);
  const perIp = createLimits({ failsPerIpDay: { points: 10, duration: 3600 } });
  const spread = await Promise.all(
    Array.from({ length: 40 }, (_, i) => perIp.beginLogin(`p${i}@x.test`, '10.0.1.2')),
  );
  assert.equal(spread.filter((a) => a.ok).length, 10);
});

test('a success gives the IP its point back; a refused attempt takes nothing', async () => {
  const limits = createLimits({ failsPerIpDay: { points: 2, duration: 3600 } });
  for (let i = 0; i < 5; i++) {
    const a = await limits.beginLogin(`ok${i}@x.test`, '10.0.2.1');
    assert.ok(a.ok, `success ${i} is never counted against the IP`);
    await a.ticket.succeeded();
  }
  assert.equal(await failOnce(limits, 'f1@x.test', '10.0.2.1'), true);
  assert.equal(await failOnce(limits, 'f2@x.test', '10.0.2.1'), true);
  assert.equal(await failOnce(limits, 'f3@x.test', '10.0.2.1'), false);
});

test('per-account slow-down: free failures, then a doubling wait up to the cap, across any IPs', async () => {
  let now = 1_000_000;
  const limits = createLimits({}, () => now);
  const email = 'victim@x.test';
  const ip = (i: number) => `198.51.${i >> 8}.${i & 255}`;
  let n = 0;
  for (let i = 0; i < ACCOUNT_SLOWDOWN.freeFailures; i++)
    assert.equal(await failOnce(limits, email, ip(n++)), true, `free failure ${i + 1}`);
  // Now every attempt, from any address, waits base * 2^k seconds after the previous failure.
  let expected = ACCOUNT_SLOWDOWN.baseDelayS;
  for (let k = 0; k < 10; k++) {
    const early = await limits.beginLogin(email, ip(n++));
    assert.equal(early.ok, false, `attempt ${k} before its wait`);
    assert.ok(!early.ok && early.retryAfterS === expected, `waits ${expected} s`);
    now += expected * 1000;
    assert.equal(await failOnce(limits, email, ip(n++)), true, `attempt ${k} after ${expected} s`);
    expected = Math.min(ACCOUNT_SLOWDOWN.maxDelayS, expected * 2);
  }
  assert.equal(expected, ACCOUNT_SLOWDOWN.maxDelayS, 'capped, never a lockout');
  // Parallel attempts cannot share one slot.
  now += expected * 1000;
  const burst = await Promise.all(Array.from({ length: 20 }, () => limits.beginLogin(email, ip(n++))));
  assert.equal(burst.filter((a) => a.ok).length, 1);
  // The owner's known address is not slowed down, and a correct password resets the count.
  const owner = await limits.beginLogin(email, '203.0.113.5', { knownIp: true });
  assert.ok(owner.ok);
  await owner.ticket.succeeded();
  assert.equal(await failOnce(limits, email, ip(n++)), true, 'starts over after a success');
  // Other accounts are untouched throughout.
  assert.equal(await failOnce(limits, 'other@x.test', ip(n++)), true);
});

test('a mailed-link reset clears the account slow-down; failures are forgotten after a quiet day', async () => {
  let now = 5_000_000;
  const limits = createLimits({}, () => now);
  for (let i = 0; i <= ACCOUNT_SLOWDOWN.freeFailures; i++) await failOnce(limits, 'r@x.test', `10.5.0.${i}`);
  assert.equal(await failOnce(limits, 'r@x.test', '10.5.1.1'), false);
  await limits.clearAccount('r@x.test');
  assert.equal(await failOnce(limits, 'r@x.test', '10.5.1.2'), true);
  for (let i = 0; i <= ACCOUNT_SLOWDOWN.freeFailures; i++) await failOnce(limits, 'q@x.test', `10.6.0.${i}`);
  now += ACCOUNT_SLOWDOWN.forgetAfterS * 1000 + 1;
  assert.equal(await failOnce(limits, 'q@x.test', '10.6.1.1'), true);
  assert.equal(await failOnce(limits, 'q@x.test', '10.6.1.2'), true, 'the count started over');
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
