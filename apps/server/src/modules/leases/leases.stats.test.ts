import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseWhitelist } from '@pm/contracts';
import {
  autoRefundWindow,
  computeFailPct,
  computeLeaseStats,
  isRefundable,
  isRenewable,
} from './leases.stats.ts';

const HOUR = 3600_000;
const base = {
  start: new Date(0),
  endedAt: null,
  static: false,
  reqs: 10,
  fails: 4,
  inBytes: 1000,
  outBytes: 2000,
};
const offline = { online: false, speedBps: null };

test('failPct is fails / reqs * 100 and 0 without requests', () => {
  assert.equal(computeFailPct(0, 0), 0);
  assert.equal(computeFailPct(3, 1), 33.33);
  assert.deepEqual(computeLeaseStats({ ...base, authFails: 0 }, offline, HOUR), {
    reqs: 10,
    failPct: 40,
    authFails: 0,
    inBytes: 1000,
    outBytes: 2000,
    refundable: true,
  });
});

test('refused sign-ins are their own figure: 50 wrong passwords leave failPct where it was', () => {
  const stats = computeLeaseStats({ ...base, authFails: 50 }, offline, HOUR);
  assert.equal(stats.authFails, 50);
  assert.equal(stats.failPct, 40);
  assert.equal(stats.reqs, 10);
});

test('refundable only in the first 4 hours, agent offline, traffic under 100 MB, speed under 500 kbps', () => {
  assert.equal(isRefundable(base, offline, 4 * HOUR - 1), true);
  assert.equal(isRefundable(base, offline, 4 * HOUR), false);
  assert.equal(isRefundable(base, { online: true, speedBps: null }, HOUR), false);
  assert.equal(isRefundable({ ...base, inBytes: 60e6, outBytes: 40e6 }, offline, HOUR), false);
  assert.equal(isRefundable({ ...base, inBytes: 60e6, outBytes: 40e6 - 1 }, offline, HOUR), true);
  assert.equal(isRefundable(base, { online: false, speedBps: 500_000 }, HOUR), false);
  assert.equal(isRefundable(base, { online: false, speedBps: 499_999 }, HOUR), true);
  assert.equal(isRefundable({ ...base, endedAt: new Date(1) }, offline, HOUR), false);
});

test('static leases: refundable within 1 hour only if unused', () => {
  const stat = { ...base, static: true, reqs: 0 };
  assert.equal(isRefundable(stat, { online: true, speedBps: 1e9 }, HOUR - 1), true);
  assert.equal(isRefundable(stat, offline, HOUR), false);
  assert.equal(isRefundable({ ...stat, reqs: 1 }, offline, 1), false);
});

test('auto-refund window: the current hour whole, the previous one by the part still inside the last hour', () => {
  const at = Date.UTC(2026, 10, 26, 15, 20);
  const w = autoRefundWindow(at);
  assert.deepEqual(
    [w.hourStart, w.previousHour],
    [new Date(Date.UTC(2026, 10, 26, 15)), new Date(Date.UTC(2026, 10, 26, 14))],
  );
  assert.ok(Math.abs(w.previousWeight - 2 / 3) < 1e-9, `weight ${w.previousWeight}`);
  assert.equal(autoRefundWindow(Date.UTC(2026, 10, 26, 15)).previousWeight, 1);
  assert.ok(autoRefundWindow(Date.UTC(2026, 10, 26, 16) - 1).previousWeight < 1e-6);
});

test('renewable in the last 5 hours of a lease that has not ended', () => {
  const until = new Date(100 * HOUR);
  assert.equal(isRenewable({ until, endedAt: null }, 95 * HOUR - 1), false);
  assert.equal(isRenewable({ until, endedAt: null }, 95 * HOUR), true);
  assert.equal(isRenewable({ until, endedAt: null }, 100 * HOUR - 1), true);
  assert.equal(isRenewable({ until, endedAt: null }, 100 * HOUR), false);
  assert.equal(isRenewable({ until, endedAt: new Date(0) }, 99 * HOUR), false);
});

test('whitelist parsing: IPv4 octets 0-255, CIDR /24-32, first bad entry named', () => {
  assert.deepEqual(parseWhitelist('1.2.3.4, 1.2.3.0/24,255.255.255.255/32'), {
    ok: true,
    entries: ['1.2.3.4', '1.2.3.0/24', '255.255.255.255/32'],
  });
  assert.deepEqual(parseWhitelist(''), { ok: true, entries: [] });
  for (const bad of ['1.2.3', '1.2.3.256', '1.2.3.4/33', 'a.b.c.d', '1.2.3.4/', '::1', '1.2.3.4.5']) {
    assert.deepEqual(parseWhitelist(`9.9.9.9,${bad}`), { ok: false, bad, problem: 'invalid' }, bad);
  }
  // Wider than /24 opens the no-auth port to strangers; 0.0.0.0/0 makes it an open proxy.
  for (const bad of ['0.0.0.0/0', '10.0.0.0/8', '10.1.0.0/16', '198.51.100.0/23']) {
    assert.deepEqual(parseWhitelist(`9.9.9.9,${bad}`), { ok: false, bad, problem: 'tooWide' }, bad);
  }
});
