import assert from 'node:assert/strict';
import { it } from 'node:test';
import { cents } from '@pm/money';
import {
  activityBand,
  activityLabel,
  blacklistNames,
  canBuyPrivate,
  canBuyShared,
  cleanBand,
  formatBytes,
  formatDuration,
  formatMbps,
  formatScore,
  formatTimeLeft,
  isPrivateByDefault,
  maskIp,
  newLabel,
  priceFor,
  proxyCount,
  sharedLabel,
} from './agent.ts';

it('shows the hidden part of an IP or host name as asterisks', () => {
  assert.equal(maskIp('198.51.100.___'), '198.51.100.***');
  assert.equal(maskIp('203.0.113.7'), '203.0.113.7');
  assert.equal(maskIp('___.hudsonfiber.example'), '***.hudsonfiber.example');
});

it('counts proxies', () => {
  assert.equal(proxyCount(1), '1 proxy');
  assert.equal(proxyCount(0), '0 proxies');
  assert.equal(proxyCount(15), '15 proxies');
});

it('Shared column, clean bands, activity bands, New', () => {
  assert.equal(sharedLabel(0), 'Private');
  assert.equal(sharedLabel(1), '1 of 4');
  assert.equal(sharedLabel(4), '4 of 4');
  assert.deepEqual([1, 5, 6, 10].map(cleanBand), ['low', 'low', 'high', 'high']);
  assert.deepEqual([0.7, 0.69, 0.4, 0.39, 1].map(activityBand), ['ok', 'medium', 'medium', 'low', 'ok']);
  assert.equal(activityLabel(0.853), '85% (Good)');
  assert.equal(newLabel({ leases: { count: 0, worn: false } }), 'Yes');
  assert.equal(newLabel({ leases: { count: 0, worn: true } }), 'No');
});

it('offers private first without leases, shared with them, and prices accordingly', () => {
  const free = { leases: { count: 0, worn: false }, priceExcC: cents(300), priceShrC: cents(120) };
  const shared = { ...free, leases: { count: 2, worn: true } };
  const full = { ...free, leases: { count: 4, worn: true } };
  assert.equal(isPrivateByDefault(free), true);
  assert.equal(isPrivateByDefault(shared), false);
  assert.equal(canBuyPrivate(free) && canBuyShared(free), true);
  assert.equal(canBuyPrivate(shared), false);
  assert.equal(canBuyShared(shared), true);
  assert.equal(canBuyShared(full), false);
  assert.equal(priceFor(free, true), 300);
  assert.equal(priceFor(free, false), 120);
});

it('durations, speeds, bytes and scores', () => {
  const now = Date.parse('2026-11-22T12:00:00Z');
  assert.equal(formatDuration('2026-11-19T08:30:00Z', now), '3d 3h');
  assert.equal(formatDuration('2026-11-22T06:48:00Z', now), '5h 12m');
  assert.equal(formatDuration('2026-11-22T11:59:30Z', now), '0m');
  assert.equal(formatDuration(null, now), 'Unknown');
  assert.equal(formatDuration('1999-12-31T23:59:59Z', now), 'Unknown', 'before 2000 is a clock never set');
  assert.notEqual(formatDuration('2000-01-01T00:00:00Z', now), 'Unknown');
  assert.equal(formatDuration('2026-11-23T00:00:00Z', now), 'Unknown');
  assert.equal(formatTimeLeft('2026-11-23T11:59:00Z', now), '23h 59m');
  assert.equal(formatTimeLeft('2026-11-22T11:00:00Z', now), 'Expired');
  assert.equal(formatMbps(12_345_678), '12.3 Mbps');
  assert.deepEqual([0, 999, 1500, 12_300_000, 2e9].map(formatBytes), [
    '0 B',
    '999 B',
    '1.5 kB',
    '12.3 MB',
    '2.0 GB',
  ]);
  assert.equal(formatScore(0.12345), '0.12');
  assert.equal(formatScore(3), '3');
});

it('drops empty and ignored blacklists and names the known ones', () => {
  assert.deepEqual(
    blacklistNames([
      '',
      'spamhaus-xbl',
      'spamhaus-pbl',
      ' uceprotect-l3',
      'spamcop',
      'spamhaus-xbl',
      'other-list',
    ]),
    ['other-list', 'SpamCop', 'Spamhaus XBL (exploits)'],
  );
  assert.deepEqual(blacklistNames([]), []);
});
