import assert from 'node:assert/strict';
import { it } from 'node:test';
import { changeLabels, FAILURE_TEXTS, purchaseFailureOf, reloadsProxies } from './purchase.ts';

it('maps a refused purchase to its state (rules §8)', () => {
  assert.deepEqual(purchaseFailureOf(402, { error: 'PAYMENT_REQUIRED' }), { step: 'NOT_ENOUGH_FUNDS' });
  assert.deepEqual(purchaseFailureOf(409, { errorCode: 'probeErrAgent' }), { step: 'TEST_FAILED' });
  assert.deepEqual(purchaseFailureOf(409, { errorCode: 'priceChanged' }), { step: 'PRICE_CHANGED' });
  assert.deepEqual(purchaseFailureOf(409, { errorCode: 'agentAlreadyLeased' }), { step: 'ALREADY_LEASED' });
  assert.deepEqual(purchaseFailureOf(409, { errorCode: 'agentNotFound' }), { step: 'AGENT_NOT_FOUND' });
  assert.deepEqual(
    purchaseFailureOf(409, { errorCode: 'agentInfoChanged', changes: ['score', 'ip', 'bogus'] }),
    {
      step: 'INFO_CHANGED',
      changes: ['ip', 'score'],
    },
  );
  assert.deepEqual(purchaseFailureOf(409, { errorCode: 'agentInfoChanged' }), {
    step: 'INFO_CHANGED',
    changes: [],
  });
  // An unconfirmed address (issue 36 item 7) has its own dialog; a blocked account the generic one.
  assert.deepEqual(purchaseFailureOf(403, { errorCode: 'emailNotConfirmed' }), {
    step: 'EMAIL_NOT_CONFIRMED',
  });
  assert.match(FAILURE_TEXTS.EMAIL_NOT_CONFIRMED.text, /Confirm your email address first/);
  assert.deepEqual(purchaseFailureOf(403, { errorCode: 'accountBlocked' }), { step: 'GENERIC_ERROR' });
  assert.equal(reloadsProxies('EMAIL_NOT_CONFIRMED'), false);
  for (const [status, body] of [
    [403, undefined],
    [409, { errorCode: 'somethingElse' }],
    [409, undefined],
    [500, { errorCode: 'priceChanged' }],
    [400, { error: 'VALIDATION_FAILED' }],
    [null, undefined],
  ] as const) {
    assert.deepEqual(purchaseFailureOf(status, body), { step: 'GENERIC_ERROR' }, String(status));
  }
});

it('names the changed parameters as the dialog lists them', () => {
  assert.deepEqual(changeLabels(['ip', 'geo', 'blacklists', 'host', 'score', 'rating']), [
    'IP Address',
    'Geolocation',
    'Blacklists',
    'DNS Hostname',
    'IP Score',
    'Rating',
  ]);
});

it('reloads the proxy after price, info, already-leased and offline answers only', () => {
  assert.equal(reloadsProxies('PRICE_CHANGED'), true);
  assert.equal(reloadsProxies('INFO_CHANGED'), true);
  assert.equal(reloadsProxies('ALREADY_LEASED'), true);
  assert.equal(reloadsProxies('TEST_FAILED'), false);
  assert.equal(reloadsProxies('NOT_ENOUGH_FUNDS'), false);
});

it('dialog titles and texts of the spec', () => {
  assert.equal(FAILURE_TEXTS.TEST_FAILED.title, 'The proxy is not responding');
  assert.equal(FAILURE_TEXTS.PRICE_CHANGED.title, 'Price Changed');
  assert.equal(FAILURE_TEXTS.NOT_ENOUGH_FUNDS.title, 'Not Enough Funds');
  assert.equal(FAILURE_TEXTS.GENERIC_ERROR.title, 'Purchase Failed');
  assert.equal(FAILURE_TEXTS.INFO_CHANGED.title, 'Proxy Parameters Changed');
  assert.deepEqual(FAILURE_TEXTS.ALREADY_LEASED, {
    title: 'Already Purchased',
    text: 'This proxy is currently purchased and unavailable.',
  });
  assert.deepEqual(FAILURE_TEXTS.AGENT_NOT_FOUND, {
    title: 'Proxy offline',
    text: 'This proxy is currently offline.',
  });
});
