import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from '@pm/testkit';
import { Keepalive } from './keepalive.ts';

/** A keepalive of 15 s / 45 s driven by hand: what it did at each tick. */
function driven(onlyWhenSilent: boolean) {
  const events: string[] = [];
  const k = new Keepalive(
    15_000,
    45_000,
    { keepalivePing: () => events.push('ping'), keepaliveLost: () => events.push('give up') },
    onlyWhenSilent,
  );
  return { k, events };
}

test('by default a tunnel pings every interval, heard from or not', () => {
  const { k, events } = driven(false);
  k.heard();
  k.tick();
  k.heard();
  k.tick();
  assert.deepEqual(events, ['ping', 'ping']);
});

test('pinging only when silent: a peer heard every interval is never pinged', () => {
  const { k, events } = driven(true);
  for (let i = 0; i < 5; i++) {
    k.heard();
    k.tick();
  }
  assert.deepEqual(events, []);
});

test('pinging only when silent: a quiet interval brings a ping, and 45 s of silence still give up', () => {
  const { k, events } = driven(true);
  k.heard();
  k.tick();
  k.tick();
  k.tick();
  k.tick();
  assert.deepEqual(events, ['ping', 'ping', 'give up']);
});

test('retimed to a longer period, silence is counted in the new periods: three of them give up', () => {
  const { k, events } = driven(true);
  k.tick();
  k.tick();
  assert.deepEqual(events, ['ping']);
  k.retime(60_000, 180_000);
  k.tick();
  k.tick();
  assert.deepEqual(events, ['ping', 'ping', 'ping']);
  k.tick();
  assert.deepEqual(events, ['ping', 'ping', 'ping', 'give up']);
});

test('retimed while running, the timer ticks at the new period', async () => {
  const events: string[] = [];
  const k = new Keepalive(60_000, 180_000, {
    keepalivePing: () => events.push('ping'),
    keepaliveLost: () => events.push('give up'),
  });
  k.start();
  k.retime(20, 60_000);
  // Two pings long before the old period's first one (a loaded machine may stretch 20 ms).
  await waitFor(() => events.length >= 2, { timeoutMs: 10_000, intervalMs: 10, what: 'two pings' });
  k.stop();
  assert.deepEqual(events, ['ping', 'ping']);
});
