import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FailureLimiter, sourceKey } from './auth-limiter.ts';

test('delay grows per source, is capped, and forgets after quiet', () => {
  const l = new FailureLimiter({ baseDelayMs: 100, maxDelayMs: 1000, forgetAfterMs: 60_000 });
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((i) => l.fail('1.1.1.1', `guess${i}`, 0)),
    [0, 100, 200, 400, 800, 1000],
  );
  assert.equal(l.fail('2.2.2.2', 'other', 0), 0);
  assert.equal(l.fail('1.1.1.1', 'guess7', 120_000), 0);
});

test('a success clears only its own credential: logging in with a valid lease does not wipe guesses', () => {
  const l = new FailureLimiter({ baseDelayMs: 100, maxDelayMs: 10_000 });
  for (const u of ['a', 'b', 'c']) l.fail('1.1.1.1', u, 0);
  l.succeed('1.1.1.1', 'my-own-lease');
  assert.equal(l.fail('1.1.1.1', 'd', 0), 400, 'the source keeps its three failures');
  // A customer who mistyped their own password and then got it right is back to normal.
  const m = new FailureLimiter({ baseDelayMs: 100, maxDelayMs: 10_000 });
  m.fail('3.3.3.3', 'mine', 0);
  m.fail('3.3.3.3', 'mine', 0);
  m.succeed('3.3.3.3', 'mine');
  assert.equal(m.fail('3.3.3.3', 'mine', 0), 0);
});

test('per credential: guesses at one user name from many sources are slowed too', () => {
  const l = new FailureLimiter({ baseDelayMs: 100, maxDelayMs: 10_000 });
  const delays = [1, 2, 3, 4].map((i) => l.fail(`10.0.0.${i}`, 'known-user', 0));
  assert.deepEqual(delays, [0, 100, 200, 400]);
  l.succeed('10.9.9.9', 'known-user');
  assert.equal(l.fail('10.0.0.5', 'known-user', 0), 0, 'the right password from anywhere resets it');
});

test('IPv6 sources count by /64: a new address in the same /64 is the same source', () => {
  assert.equal(sourceKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(sourceKey('2001:db8:1:2::ffff'), '2001:db8:1:2::/64');
  assert.equal(sourceKey('2001:0db8:0001:0002:0:0:0:1'), '2001:db8:1:2::/64');
  assert.equal(sourceKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(sourceKey('::1'), '0:0:0:0::/64');
  assert.equal(sourceKey('192.0.2.7'), '192.0.2.7');
  const l = new FailureLimiter({ baseDelayMs: 100, maxDelayMs: 10_000 });
  const delays = [1, 2, 3].map((i) => l.fail(`2001:db8:1:2::${i.toString(16)}`, `g${i}`, 0));
  assert.deepEqual(delays, [0, 100, 200]);
  assert.equal(l.fail('2001:db8:1:3::1', 'g4', 0), 0, 'the next /64 is another source');
});

test('concurrent handshakes per source are capped; IPv6 by /64; slots come back', () => {
  const l = new FailureLimiter({ maxHandshakesPerSource: 2 });
  assert.equal(l.openHandshake('1.1.1.1'), true);
  assert.equal(l.openHandshake('1.1.1.1'), true);
  assert.equal(l.openHandshake('1.1.1.1'), false);
  assert.equal(l.openHandshake('1.1.1.2'), true, 'another source');
  l.closeHandshake('1.1.1.1');
  assert.equal(l.openHandshake('1.1.1.1'), true);
  assert.equal(l.openHandshake('2001:db8::1'), true);
  assert.equal(l.openHandshake('2001:db8::2'), true);
  assert.equal(l.openHandshake('2001:db8::3'), false, 'same /64');
  for (const ip of ['1.1.1.1', '1.1.1.1', '1.1.1.2', '2001:db8::1', '2001:db8::2']) l.closeHandshake(ip);
  assert.equal(l.handshakingSources, 0);
});

test('memory stays bounded', () => {
  const l = new FailureLimiter({ maxEntries: 100 });
  for (let i = 0; i < 1000; i++) l.fail(`10.0.${i >> 8}.${i & 255}`, `u${i}`);
  assert.equal(l.size, 200);
});
