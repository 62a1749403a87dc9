import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ZAgent } from '@pm/contracts';
import { cents } from '@pm/money';
import type { ShopRow } from './agents.filter.repository.ts';
import { isNewAgent, maskHost, maskIp, toAgent } from './agents.mapper.ts';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-20T12:00:00Z');

test('maskIp hides an IPv4 last octet and an IPv6 interface part', () => {
  assert.equal(maskIp('198.51.100.10'), '198.51.100.___');
  assert.equal(maskIp('1.2.3.4'), '1.2.3.___');
  assert.equal(maskIp('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2:___');
  assert.equal(maskIp('2001:db8::1'), '2001:db8:0:0:___');
  assert.equal(maskIp('::ffff:1'), '0:0:0:0:___');
  assert.equal(maskIp(''), '');
  assert.equal(maskIp('garbage'), '___');
});

test('maskHost hides the first label, which usually spells the address', () => {
  assert.equal(maskHost('dyn-198-51-100-10.hudsonfiber.example'), '___.hudsonfiber.example');
  assert.equal(maskHost('localhost'), '___');
  assert.equal(maskHost(''), '');
});

test('New means not sold in the last 30 days', () => {
  assert.equal(isNewAgent(null, NOW), true);
  assert.equal(isNewAgent(new Date(NOW - 29 * DAY), NOW), false);
  assert.equal(isNewAgent(new Date(NOW - 30 * DAY), NOW), false);
  assert.equal(isNewAgent(new Date(NOW - 30 * DAY - 1), NOW), true);
});

const row: ShopRow = {
  id: 'ag-1',
  ip: '198.51.100.10',
  host: 'dyn-198-51-100-10.isp.example',
  cc: 'US',
  reg: 'NY',
  city: 'New York',
  zip: '10001',
  isp: 'Hudson Fiber',
  mob: false,
  conn: 'wifi',
  dev: 'other',
  stars: 7,
  actv: 1.2,
  probeActv: -0.1,
  online: true,
  isStatic: false,
  nodeId: 'n1',
  firstSeen: new Date('2025-01-02T03:04:05Z'),
  lastSoldAt: new Date(NOW - DAY),
  speedBps: 12_000_000,
  speedCheckedAt: new Date(NOW - 3600_000),
  activeShared: 2,
  activeExclusive: 0,
  onlineSince: new Date(NOW - 7200_000),
  blacklistIds: ['spamcop'],
  scoreCheck: null,
};
const prices = { priceExcC: cents(500), priceShrC: cents(200) };

test('toAgent fills every field of ZAgent, masked unless the caller holds a lease', () => {
  const seen = ZAgent.parse(toAgent(row, prices, { holds: false, used: true }, NOW));
  assert.equal(seen.ip, '198.51.100.___');
  assert.equal(seen.host, '___.isp.example');
  assert.deepEqual(seen.leases, { count: 2, worn: true });
  assert.deepEqual([seen.actv, seen.probeActv], [1, 0], 'clamped to 0-1');
  assert.equal(seen.used, true);
  assert.equal(seen.firstSeen, new Date(NOW - 7200_000).toISOString());
  assert.equal(seen.age, '2025-01-02T03:04:05.000Z');
  assert.deepEqual(seen.speed, { bps: 12_000_000, checkTime: new Date(NOW - 3600_000).toISOString() });
  const held = toAgent(row, prices, { holds: true, used: true }, NOW);
  assert.deepEqual([held.ip, held.host], [row.ip, row.host]);
  const bare = toAgent(
    { ...row, speedBps: null, firstSeen: null, onlineSince: null, lastSoldAt: null },
    prices,
    { holds: false, used: false },
    NOW,
  );
  assert.deepEqual([bare.speed, bare.age, bare.firstSeen, bare.leases.worn], [null, null, null, false]);
});
