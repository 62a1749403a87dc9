import assert from 'node:assert/strict';
import { it } from 'node:test';
import {
  refundHint,
  refundOffersSupport,
  refundResultOf,
  renewHint,
  renewPriceC,
  renewResultOf,
  renewResultOfAnswer,
  renewStepOf,
} from './lifecycle.ts';

it('maps a refused renewal: 402 is not enough funds, anything else failed', () => {
  assert.equal(renewResultOf(402), 'RENEW_STATUS_NOT_ENOUGH_FUNDS');
  for (const status of [400, 404, 409, 500, null]) assert.equal(renewResultOf(status), 'RENEW_STATUS_FAILED');
});

it('leads each renew result to its dialog step', () => {
  assert.equal(renewStepOf('RENEW_STATUS_RENEWED'), 'SUCCESS');
  assert.equal(renewStepOf('RENEW_STATUS_NOT_ENOUGH_FUNDS'), 'NOT_ENOUGH_FUNDS');
  assert.equal(renewStepOf('RENEW_STATUS_FAILED'), 'FAILED');
});

it('maps a refused refund: 409 agentNotDead or notRefundable is alive, 400 ineligible, else failed', () => {
  assert.equal(refundResultOf(409, { errorCode: 'agentNotDead' }), 'REFUND_STATUS_ALIVE');
  assert.equal(refundResultOf(409, { errorCode: 'notRefundable' }), 'REFUND_STATUS_ALIVE');
  assert.equal(refundResultOf(400, { errorCode: 'leaseNotEligible' }), 'REFUND_STATUS_INELIGIBLE');
  assert.equal(refundResultOf(400, { errorCode: 'somethingElse' }), 'REFUND_STATUS_INELIGIBLE');
  assert.equal(refundResultOf(400, undefined), 'REFUND_STATUS_INELIGIBLE');
  assert.equal(refundResultOf(409, { errorCode: 'other' }), 'REFUND_STATUS_FAILED');
  assert.equal(refundResultOf(500, 'boom'), 'REFUND_STATUS_FAILED');
  assert.equal(refundResultOf(null, undefined), 'REFUND_STATUS_FAILED');
});

it('offers support only for an ineligible lease', () => {
  assert.equal(refundOffersSupport('REFUND_STATUS_INELIGIBLE'), true);
  assert.equal(refundOffersSupport('REFUND_STATUS_ALIVE'), false);
  assert.equal(refundOffersSupport('REFUND_STATUS_FAILED'), false);
});

it('prices a renewal at the purchase price per hour leased times 24, rounded down', () => {
  const start = '2026-01-01T00:00:00.000Z';
  assert.equal(renewPriceC({ purchasePriceC: 250, start, until: '2026-01-02T00:00:00.000Z' }), 250);
  assert.equal(renewPriceC({ purchasePriceC: 301, start, until: '2026-01-03T00:00:00.000Z' }), 150);
  assert.equal(renewPriceC({ purchasePriceC: 100, start, until: '2026-01-01T07:00:00.000Z' }), 342);
});

it('takes a 2xx renew answer as renewed unless its status says otherwise', () => {
  assert.equal(renewResultOfAnswer({ status: 'RENEW_STATUS_RENEWED' }), 'RENEW_STATUS_RENEWED');
  assert.equal(renewResultOfAnswer(undefined), 'RENEW_STATUS_RENEWED');
  assert.equal(renewResultOfAnswer({ status: 'RENEW_STATUS_NOT_RENEWABLE' }), 'RENEW_STATUS_FAILED');
});

const HOUR = 3_600_000;
const NOW = Date.parse('2026-06-01T12:00:00Z');
const at = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();
const leaseAt = (o: {
  ageMs: number;
  renewable?: boolean;
  static?: boolean;
  refundable?: boolean;
  reqs?: number;
  bytes?: number;
}) => ({
  start: at(-o.ageMs),
  until: at(24 * HOUR - o.ageMs),
  renewable: o.renewable ?? false,
  static: o.static ?? false,
  stats: {
    reqs: o.reqs ?? 0,
    failPct: 0,
    authFails: 0,
    inBytes: o.bytes ?? 0,
    outBytes: 0,
    refundable: o.refundable ?? false,
  },
});

it('says why Renew is greyed: it opens in the last 5 hours, and when', () => {
  assert.equal(
    renewHint(leaseAt({ ageMs: 2 * HOUR }), NOW),
    'Renew opens in the last 5 hours of the lease (in 17h)',
  );
  assert.equal(
    renewHint(leaseAt({ ageMs: 18 * HOUR + 40 * 60_000 }), NOW),
    'Renew opens in the last 5 hours of the lease (in 20m)',
  );
  assert.equal(renewHint(leaseAt({ ageMs: 20 * HOUR, renewable: true }), NOW), null);
  assert.equal(renewHint(leaseAt({ ageMs: 25 * HOUR }), NOW), 'The lease has ended');
});

it('says why Refund is greyed, by the rule that refused it', () => {
  assert.match(refundHint(leaseAt({ ageMs: HOUR }), NOW), /^Refund: the proxy is responsive/);
  assert.equal(refundHint(leaseAt({ ageMs: 5 * HOUR }), NOW), 'Refund: only in the first 4 hours of a lease');
  assert.equal(
    refundHint(leaseAt({ ageMs: HOUR, bytes: 100_000_000 }), NOW),
    'Refund: over 100 MB went through the proxy',
  );
  assert.match(refundHint(leaseAt({ ageMs: HOUR, refundable: true }), NOW), /not working/);
});

it('tells a static lease its own rule: within 1 hour if unused', () => {
  assert.equal(
    refundHint(leaseAt({ ageMs: 2 * HOUR, static: true }), NOW),
    'Static proxies refund within 1 hour if unused: the hour has passed',
  );
  assert.equal(
    refundHint(leaseAt({ ageMs: 10 * 60_000, static: true, reqs: 3 }), NOW),
    'Static proxies refund within 1 hour if unused: this one was used',
  );
  assert.match(
    refundHint(leaseAt({ ageMs: 10 * 60_000, static: true, refundable: true }), NOW),
    /through support/,
  );
});
