import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from './wait.ts';

test('waitFor resolves with the first truthy value', async () => {
  let n = 0;
  const got = await waitFor(() => (++n >= 3 ? { n } : null), { timeoutMs: 1000, intervalMs: 1 });
  assert.deepEqual(got, { n: 3 });
});

test('waitFor awaits an async condition', async () => {
  let n = 0;
  assert.equal(await waitFor(async () => ++n === 2, { timeoutMs: 1000, intervalMs: 1 }), true);
});

test('waitFor throws on timeout, naming what it waited for and the last value', async () => {
  await assert.rejects(
    waitFor(() => 0, { timeoutMs: 30, what: 'the lease ends' }),
    {
      message: 'waitFor: the lease ends: not within 30 ms (last: 0)',
    },
  );
});

test('waitFor names the condition by its source when not told what', async () => {
  const open = false;
  await assert.rejects(
    waitFor(() => open, { timeoutMs: 10 }),
    (e: Error) => e.message.includes('() => open') && e.message.includes('not within 10 ms'),
  );
});

test('a condition that throws fails the wait at once', async () => {
  const started = performance.now();
  await assert.rejects(
    waitFor(
      () => {
        throw new Error('broken check');
      },
      { timeoutMs: 5000 },
    ),
    /broken check/,
  );
  assert.ok(performance.now() - started < 1000);
});
