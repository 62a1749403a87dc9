import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS, ZChargePage, ZCryptoCreateResponse, ZDeepCheckResponse } from '@pm/contracts';
import { createPaymentsHarness, type PaymentsHarness } from '../../test/payments.ts';
import { callRoute, callRouteUnchecked } from '../../test/route.ts';

let h: PaymentsHarness;
before(async () => {
  h = await createPaymentsHarness('payments_routes');
});
after(async () => {
  await h?.close();
});

/** A payment operation's POST with any body: most calls here are refusals of input on purpose. */
const post = (
  e: typeof ENDPOINTS.createCharge | typeof ENDPOINTS.checkCharge | typeof ENDPOINTS.deepCheckPayments,
  headers: Record<string, string>,
  body: unknown,
) => callRouteUnchecked(h.app, e, { headers, body });

describe('payment routes', () => {
  test('POST /crypto/create: 200 with the charge; 400 naming amount or type; 403 without DEPOSIT or for another user; 401', async () => {
    const { userId } = await h.customer();
    const auth = await h.auth(userId);
    const ok = await post(ENDPOINTS.createCharge, auth, {
      amount: 2000,
      type: 'ltc',
      user_id: userId,
      user_email: 'x@y.z',
    });
    assert.equal(ok.statusCode, 200, ok.body);
    const charge = ZCryptoCreateResponse.parse(ok.json());
    assert.match(charge.newChargeCode, /^[A-Z0-9]{12}$/);

    const low = await post(ENDPOINTS.createCharge, auth, { amount: 999, type: 'trc20usdt' });
    assert.equal(low.statusCode, 400);
    assert.equal(low.json().field, 'amount');
    assert.match(low.json().message, /at least 1000 cents/);
    const lowBtc = await post(ENDPOINTS.createCharge, auth, { amount: 499, type: 'btc' });
    assert.equal(lowBtc.json().field, 'amount');
    assert.equal((await post(ENDPOINTS.createCharge, auth, { amount: 500, type: 'btc' })).statusCode, 200);
    const badType = await post(ENDPOINTS.createCharge, auth, { amount: 2000, type: 'doge' });
    assert.equal(badType.statusCode, 400);
    assert.equal(badType.json().field, 'type');
    const frac = await post(ENDPOINTS.createCharge, auth, { amount: 20.5, type: 'ltc' });
    assert.equal(frac.json().field, 'amount');

    const other = await post(ENDPOINTS.createCharge, auth, {
      amount: 2000,
      type: 'ltc',
      user_id: 'someone-else',
    });
    assert.equal(other.statusCode, 403);
    const review = await h.customer({ deposit: false });
    const noDeposit = await post(ENDPOINTS.createCharge, await h.auth(review.userId), {
      amount: 2000,
      type: 'ltc',
    });
    assert.equal(noDeposit.statusCode, 403);
    assert.equal(noDeposit.json().errorCode, 'depositNotAllowed');
    assert.match(noDeposit.json().message, /under review/);
    assert.equal((await post(ENDPOINTS.createCharge, {}, { amount: 2000, type: 'ltc' })).statusCode, 401);
  });

  test('a stale rate answers 503 rateUnavailable and creates nothing', async () => {
    const { userId } = await h.customer();
    h.ticker.setOutage('kraken', true);
    h.ticker.setOutage('coinbase', true);
    h.clock.advance(10 * 60_000);
    try {
      const res = await post(ENDPOINTS.createCharge, await h.auth(userId), { amount: 2000, type: 'btc' });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().errorCode, 'rateUnavailable');
      const n = await h.db.query<{ n: string }>(
        'SELECT count(*) AS n FROM crypto_charges WHERE user_id = $1',
        [userId],
      );
      assert.equal(Number(n[0]?.n), 0);
    } finally {
      h.ticker.setOutage('kraken', false);
      h.ticker.setOutage('coinbase', false);
    }
  });

  test('POST /crypto/check and GET /crypto/charges/{code}: the owner and staff read; others get 404; bad ids 400', async () => {
    const { userId } = await h.customer();
    const auth = await h.auth(userId);
    const charge = ZCryptoCreateResponse.parse(
      (await post(ENDPOINTS.createCharge, auth, { amount: 1000, type: 'trc20usdt' })).json(),
    );
    const check = await post(ENDPOINTS.checkCharge, auth, { uid: charge.uid });
    assert.equal(check.statusCode, 200, check.body);
    assert.equal(check.json().status, 'new');
    const byCode = await callRoute(h.app, ENDPOINTS.getChargePage, {
      params: { code: charge.newChargeCode },
      headers: auth,
    });
    assert.equal(byCode.statusCode, 200);
    const p = ZChargePage.parse(byCode.json());
    assert.equal(p.currency, 'trc20usdt');
    assert.equal(p.amountUsd, 1000);
    assert.equal(p.paymentUri, p.address);
    assert.equal(p.bonusType, 0);

    const stranger = await h.auth((await h.customer()).userId);
    assert.equal((await post(ENDPOINTS.checkCharge, stranger, { uid: charge.uid })).statusCode, 404);
    const hidden = await callRoute(h.app, ENDPOINTS.getChargePage, {
      params: { code: charge.newChargeCode },
      headers: stranger,
    });
    assert.equal(hidden.statusCode, 404);
    assert.equal(
      (await post(ENDPOINTS.checkCharge, await h.staffAuth('staff-reader'), { uid: charge.uid })).statusCode,
      200,
    );
    const badUid = await post(ENDPOINTS.checkCharge, auth, { uid: 'nope' });
    assert.equal(badUid.statusCode, 400);
    assert.equal(badUid.json().field, 'uid');
    const badCode = await callRouteUnchecked(h.app, ENDPOINTS.getChargePage, {
      params: { code: 'lower-case' },
      headers: auth,
    });
    assert.equal(badCode.statusCode, 400);
    assert.equal(badCode.json().field, 'code');
  });

  test('POST /crypto/deep-check/ and GET /crypto/transactions: staff only, 400 without a selector, 404 without a match', async () => {
    const { userId } = await h.customer();
    const auth = await h.auth(userId);
    const staff = await h.staffAuth('staff-deep');
    const charge = ZCryptoCreateResponse.parse(
      (await post(ENDPOINTS.createCharge, auth, { amount: 500, type: 'btc' })).json(),
    );
    h.chain.pay('btc', charge.address, charge.amount, 1);

    assert.equal((await post(ENDPOINTS.deepCheckPayments, auth, { uid: charge.uid })).statusCode, 403);
    const none = await post(ENDPOINTS.deepCheckPayments, staff, {});
    assert.equal(none.statusCode, 400);
    assert.equal(none.json().field, 'uid');
    const txOnly = await post(ENDPOINTS.deepCheckPayments, staff, { txid: 'a'.repeat(64) });
    assert.equal(txOnly.json().field, 'type');
    const missing = await post(ENDPOINTS.deepCheckPayments, staff, { txid: 'a'.repeat(64), type: 'btc' });
    assert.equal(missing.statusCode, 404);
    const res = await post(ENDPOINTS.deepCheckPayments, staff, { user_id: userId, type: 'btc' });
    assert.equal(res.statusCode, 200, res.body);
    const body = ZDeepCheckResponse.parse(res.json());
    assert.equal(body.credited.length, 1);
    assert.equal(body.charges[0]?.status, 'paid');
    const audit = await h.db.query<{ actor_id: string; target_id: string }>(
      'SELECT actor_id, target_id FROM audit_log WHERE action = $1 AND target_id = $2',
      ['payment.deepCheck', userId],
    );
    assert.deepEqual(audit, [{ actor_id: 'staff-deep', target_id: userId }], 'the staff caller is the actor');

    const list = await callRoute(h.app, ENDPOINTS.listCryptoTransactions, {
      query: { user_id: userId },
      headers: staff,
    });
    assert.equal(list.statusCode, 200, list.body);
    assert.equal(list.json().total, 1);
    assert.equal(list.json().transactions[0].uid, charge.uid);
    assert.equal(list.json().transactions[0].state, 'credited');
    const customerList = await callRoute(h.app, ENDPOINTS.listCryptoTransactions, {
      query: { user_id: userId },
      headers: auth,
    });
    assert.equal(customerList.statusCode, 403);
    const noUser = await callRouteUnchecked(h.app, ENDPOINTS.listCryptoTransactions, { headers: staff });
    assert.equal(noUser.statusCode, 400);
    assert.equal(noUser.json().field, 'user_id');
  });

  test('GET /referral: the code and invite link; 401 without a token', async () => {
    const { userId, refcode } = await h.customer();
    const res = await callRoute(h.app, ENDPOINTS.getReferralInfo, { headers: await h.auth(userId) });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().refcode, refcode);
    assert.equal(res.json().firstLoadPct, 10);
    assert.equal((await callRoute(h.app, ENDPOINTS.getReferralInfo)).statusCode, 401);
  });
});
