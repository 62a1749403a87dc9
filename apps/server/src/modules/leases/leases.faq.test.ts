/**
 * The FAQ (apps/web, features/info/faq.ts) states the refund and renewal rules from these
 * `@pm/contracts` constants; here the server's own rule functions are held to the same values, so
 * the page and the server cannot disagree without a test failing on one side.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  LEASE_DURATION_MS,
  REFUND_MAX_SPEED_BPS,
  REFUND_MAX_TRAFFIC_BYTES,
  REFUND_WINDOW_MS,
  RENEW_WINDOW_MS,
  STATIC_REFUND_WINDOW_MS,
} from '@pm/contracts';
import { isRefundable, isRenewable } from './leases.stats.ts';

const lease = {
  start: new Date(0),
  endedAt: null,
  static: false,
  reqs: 0,
  fails: 0,
  inBytes: 0,
  outBytes: 0,
};
const offline = { online: false, speedBps: null };

test('the refund rule flips exactly at the constants the FAQ states', () => {
  assert.equal(isRefundable(lease, offline, REFUND_WINDOW_MS - 1), true);
  assert.equal(isRefundable(lease, offline, REFUND_WINDOW_MS), false);
  assert.equal(isRefundable({ ...lease, inBytes: REFUND_MAX_TRAFFIC_BYTES - 1 }, offline, 1), true);
  assert.equal(isRefundable({ ...lease, inBytes: REFUND_MAX_TRAFFIC_BYTES }, offline, 1), false);
  assert.equal(isRefundable(lease, { online: false, speedBps: REFUND_MAX_SPEED_BPS - 1 }, 1), true);
  assert.equal(isRefundable(lease, { online: false, speedBps: REFUND_MAX_SPEED_BPS }, 1), false);
  const staticLease = { ...lease, static: true };
  assert.equal(isRefundable(staticLease, offline, STATIC_REFUND_WINDOW_MS - 1), true);
  assert.equal(isRefundable(staticLease, offline, STATIC_REFUND_WINDOW_MS), false);
});

test('renewal opens in the last RENEW_WINDOW_MS of a lease', () => {
  const until = new Date(LEASE_DURATION_MS);
  const row = { until, endedAt: null };
  assert.equal(isRenewable(row, LEASE_DURATION_MS - RENEW_WINDOW_MS - 1), false);
  assert.equal(isRenewable(row, LEASE_DURATION_MS - RENEW_WINDOW_MS + 1), true);
});
