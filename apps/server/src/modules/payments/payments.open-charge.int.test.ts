/**
 * The open charge Add Funds shows (issue 36, item 2), through the routes the web app calls: the
 * charge page (`GET /crypto/charges/{code}`, then `POST /crypto/check`) is what the form asks before
 * it calls a kept charge open, and `POST /crypto/create` answers an existing charge again only while
 * it is unpaid and unexpired. A customer who paid must never be handed the same charge to pay again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CHARGE_LIFETIME_MS,
  ENDPOINTS,
  type TChargePage,
  type TCryptoCreateResponse,
  ZChargePage,
  ZCryptoCheckResponse,
  ZCryptoCreateResponse,
} from '@pm/contracts';
import { createPaymentsHarness, type PaymentsHarness } from '../../test/payments.ts';
import { callRoute } from '../../test/route.ts';

let h: PaymentsHarness;
before(async () => {
  h = await createPaymentsHarness('payments_open_charge', { bonusPct: 5 });
});
after(async () => {
  await h?.close();
});

/** One watcher pass with every charge due. */
const watch = async () => {
  await h.makeDue();
  await h.services.paymentWatcher.watchOnce();
};

async function createCharge(auth: Record<string, string>, amount: number): Promise<TCryptoCreateResponse> {
  const res = await callRoute(h.app, ENDPOINTS.createCharge, {
    headers: auth,
    body: { amount, type: 'ltc' },
  });
  assert.equal(res.statusCode, 200, res.body);
  return ZCryptoCreateResponse.parse(res.json());
}

/** What the form reads of a kept charge: its page by code, then the poll by uid (both must agree). */
async function readCharge(auth: Record<string, string>, code: string): Promise<TChargePage> {
  const byCode = await callRoute(h.app, ENDPOINTS.getChargePage, { params: { code }, headers: auth });
  assert.equal(byCode.statusCode, 200, byCode.body);
  const page = ZChargePage.parse(byCode.json());
  const poll = await callRoute(h.app, ENDPOINTS.checkCharge, { headers: auth, body: { uid: page.uid } });
  assert.equal(poll.statusCode, 200, poll.body);
  const checked = ZCryptoCheckResponse.parse(poll.json());
  assert.equal(checked.status, page.status);
  assert.equal(checked.data.status, page.status);
  return page;
}

describe('the open charge is only ever an unpaid, unexpired one', () => {
  test('hostile: once paid, the page says paid with what was credited, and the same top-up is a new charge', async () => {
    const { userId } = await h.customer();
    const auth = await h.auth(userId);
    const before = await h.balance(userId);
    const first = await createCharge(auth, 2000);
    assert.equal((await readCharge(auth, first.newChargeCode)).status, 'new');
    // Asked again before paying: the same charge (nothing paid, not expired).
    assert.equal((await createCharge(auth, 2000)).newChargeCode, first.newChargeCode);

    h.chain.pay('ltc', first.address, first.amount, 6);
    await watch();
    const paid = await readCharge(auth, first.newChargeCode);
    assert.equal(paid.status, 'paid');
    assert.equal(paid.creditedUsd, 2000);
    assert.equal(paid.bonusUsd, 100, '5% bonus');
    assert.equal(await h.balance(userId), before + 2100);

    // The form's next top-up of the same amount must not hand back the paid charge or its address.
    const next = await createCharge(auth, 2000);
    assert.notEqual(next.newChargeCode, first.newChargeCode);
    assert.notEqual(next.uid, first.uid);
    assert.notEqual(next.address, first.address);
    assert.equal((await readCharge(auth, next.newChargeCode)).status, 'new');
  });

  test('a payment seen but not confirmed: pending, never answered again as open', async () => {
    const { userId } = await h.customer();
    const auth = await h.auth(userId);
    const first = await createCharge(auth, 1500);
    h.chain.pay('ltc', first.address, first.amount, 0); // in the mempool
    await watch();
    assert.equal((await readCharge(auth, first.newChargeCode)).status, 'pending');
    const next = await createCharge(auth, 1500);
    assert.notEqual(next.newChargeCode, first.newChargeCode);
    assert.notEqual(next.address, first.address);
  });

  test('short of the amount: partial with the part credited, never answered again as open', async () => {
    const { userId } = await h.customer();
    const auth = await h.auth(userId);
    const first = await createCharge(auth, 2000);
    h.chain.pay('ltc', first.address, '0.1', 6); // $8.40 of $20 at $84.00
    await watch();
    const partial = await readCharge(auth, first.newChargeCode);
    assert.equal(partial.status, 'partial');
    assert.equal(partial.creditedUsd, 840);
    assert.notEqual((await createCharge(auth, 2000)).newChargeCode, first.newChargeCode);
  });

  test('past its expiry, unpaid: the page says expired and the same top-up is a new charge', async () => {
    const { userId } = await h.customer();
    const auth = await h.auth(userId);
    const first = await createCharge(auth, 700);
    h.clock.advance(CHARGE_LIFETIME_MS.ltc + 1000);
    assert.equal((await readCharge(auth, first.newChargeCode)).status, 'expired');
    assert.notEqual((await createCharge(auth, 700)).newChargeCode, first.newChargeCode);
  });

  test("another customer's charge code is not found: the form cannot be made to show it", async () => {
    const owner = await h.customer();
    const charge = await createCharge(await h.auth(owner.userId), 900);
    const other = await h.customer();
    const res = await callRoute(h.app, ENDPOINTS.getChargePage, {
      params: { code: charge.newChargeCode },
      headers: await h.auth(other.userId),
    });
    assert.equal(res.statusCode, 404);
  });
});
