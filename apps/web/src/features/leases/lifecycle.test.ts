import assert from 'node:assert/strict';
import { it } from 'node:test';
import {
  refundOffersSupport,
  refundResultOf,
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
