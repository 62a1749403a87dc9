import assert from 'node:assert/strict';
import { it } from 'node:test';
import { formatBytes } from '../../lib/format/agent.ts';
import { fillHours, stackedBars, trafficSummary, trafficTotals } from './traffic.ts';

const h = (hour: string, reqs: number, fails = 0, authFails = 0) => ({
  hour,
  reqs,
  fails,
  authFails,
  inBytes: reqs * 10,
  outBytes: reqs * 100,
});

it('fills the hours without traffic between the first and the last with zeros', () => {
  const filled = fillHours([h('2026-01-01T03:00:00.000Z', 5), h('2026-01-01T00:00:00.000Z', 2)]);
  assert.deepEqual(
    filled.map((x) => [x.hour.slice(11, 13), x.reqs]),
    [
      ['00', 2],
      ['01', 0],
      ['02', 0],
      ['03', 5],
    ],
  );
  assert.deepEqual(fillHours([]), []);
});

it('adds up requests, failures, refused sign-ins and bytes', () => {
  assert.deepEqual(trafficTotals([h('a', 5, 1, 7), h('b', 3, 2)]), {
    reqs: 8,
    fails: 3,
    authFails: 7,
    inBytes: 80,
    outBytes: 800,
  });
});

it('scales stacked bars so the tallest hour fills the height', () => {
  const bars = stackedBars(
    [h('a', 10, 2), h('b', 5, 0)],
    100,
    50,
    (x) => x.reqs - x.fails,
    (x) => x.fails,
  );
  assert.equal(bars.length, 2);
  assert.equal(bars[0]!.lower + bars[0]!.upper, 50);
  assert.equal(bars[0]!.upper, 10);
  assert.equal(bars[1]!.lower, 25);
  assert.equal(bars[1]!.x > bars[0]!.x, true);
});

it('gives an hour at most a 24th of the width, so one hour of traffic is not one wide block', () => {
  const [bar] = stackedBars(
    [h('a', 1, 0)],
    240,
    50,
    (x) => x.reqs,
    () => 0,
  );
  assert.equal(bar!.x + bar!.width <= 10, true);
});

it('sums the traffic in the lease\'s own labels, with "1 request" singular', () => {
  assert.equal(
    trafficSummary(1, { reqs: 1, fails: 0, authFails: 1, inBytes: 1100, outBytes: 2_300_000 }, formatBytes),
    '1 hour · 1 request · 0 failed · 1 failed sign-in · You to Proxy 1.1 kB · Proxy to You 2.3 MB',
  );
  assert.equal(
    trafficSummary(3, { reqs: 1234, fails: 2, authFails: 0, inBytes: 5, outBytes: 0 }, formatBytes),
    '3 hours · 1,234 requests · 2 failed · 0 failed sign-ins · You to Proxy 5 B · Proxy to You 0 B',
  );
});
