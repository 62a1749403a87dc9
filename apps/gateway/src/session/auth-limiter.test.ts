import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FailureLimiter } from './auth-limiter.ts';

test('delay grows per address, is capped, and resets on success or after quiet', () => {
  const l = new FailureLimiter({ baseDelayMs: 100, maxDelayMs: 1000, forgetAfterMs: 60_000 });
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map(() => l.fail('1.1.1.1', 0)),
    [0, 100, 200, 400, 800, 1000],
  );
  assert.equal(l.fail('2.2.2.2', 0), 0);
  l.succeed('1.1.1.1');
  assert.equal(l.fail('1.1.1.1', 0), 0);
  assert.equal(l.fail('1.1.1.1', 0), 100);
  assert.equal(l.fail('1.1.1.1', 120_000), 0);
});

test('memory stays bounded', () => {
  const l = new FailureLimiter({ maxEntries: 100 });
  for (let i = 0; i < 1000; i++) l.fail(`10.0.${i >> 8}.${i & 255}`);
  assert.equal(l.size, 100);
});
