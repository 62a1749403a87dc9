/**
 * Unconfirmed addresses can sign in but cannot top up or buy (issue 36 item 7), on the real
 * PostgreSQL server: the account learns the sign-in host's `email_verified` claim, every sale's
 * charge (`ledger.charge`) and a crypto charge refuse it with 403 `emailNotConfirmed` (an API key
 * of the account too), money credited from elsewhere cannot be spent before the confirmation, and
 * the first confirmed token unlocks it for good.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS, PERMISSION_DEPOSIT, ZAccount, ZApiKeyCreated } from '@pm/contracts';
import { buildAccount, buildAgent, buildNode, newUserId } from '@pm/db/testing';
import { cents } from '@pm/money';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { booksOf, setFlatPrices } from '../../test/market.ts';
import { callRoute } from '../../test/route.ts';
import { createLedgerService } from '../ledger/ledger.service.ts';

const PRICE_C = 500;
let t: TestApp;
let nodeId: string;

before(async () => {
  // An API process that caches what it read of an account for a minute, as replicas may.
  t = await createTestApp('accounts_email_confirmation', { blockCacheMs: 60_000 });
  nodeId = (await buildNode(t.db)).id;
  await setFlatPrices(t, PRICE_C, 200);
});
after(async () => {
  await t?.close();
});

/** A token whose `email_verified` is `verified` (undefined: the claim left out). */
const tokenOf = (userId: string, verified: boolean | undefined) =>
  t.auth(userId, [], { email_verified: verified });

/** A purchase of `agentID` at the flat price, on the market API or its public `/api` twin. */
const buy = (headers: Record<string, string>, agentID: string, publicApi = false) =>
  callRoute(t, ENDPOINTS.createLease, {
    headers,
    body: { agentID, expPriceC: cents(PRICE_C), probe: false, exc: true },
    publicApi,
  });
const myAccount = async (headers: Record<string, string>) =>
  (await callRoute(t, ENDPOINTS.getMyAccount, { headers })).ok();
const topUp = (headers: Record<string, string>) =>
  callRoute(t, ENDPOINTS.createCharge, { headers, body: { amount: 1000, type: 'ltc' } });

/** Staff credit the balance (a credit from outside is not a purchase) and grant DEPOSIT. */
async function fund(userId: string, balanceC: number) {
  const staff = await t.staffAuth(newUserId('staff'));
  const rules = [{ priceExcC: cents(PRICE_C), priceShrC: cents(200) }];
  (await callRoute(t, ENDPOINTS.replacePricingRules, { headers: staff, body: { rules } })).ok();
  const patched = await callRoute(t, ENDPOINTS.updateAccount, {
    params: { id: userId },
    headers: staff,
    body: { balanceDeltaC: cents(balanceC), permissions: { add: [PERMISSION_DEPOSIT] }, reason: 'test' },
  });
  assert.equal(patched.statusCode, 200, patched.body);
}

describe('an unconfirmed address', () => {
  test('signs in and gets its account, but every top-up and purchase is refused until a confirmed token', async () => {
    const userId = newUserId('unconfirmed');
    const unconfirmed = await tokenOf(userId, false);
    const made = await callRoute(t, ENDPOINTS.createMyAccount, { headers: unconfirmed });
    assert.equal(made.statusCode, 200, made.body);
    assert.equal(ZAccount.parse(made.json()).emailVerified, false);
    await fund(userId, 10_000);

    const [agent, staticAgent] = [
      await buildAgent(t.db, { nodeId, online: true }),
      await buildAgent(t.db, { nodeId, isStatic: true }),
    ];
    const refusals = [
      await buy(unconfirmed, agent.id),
      await callRoute(t, ENDPOINTS.leaseStaticAgent, {
        headers: unconfirmed,
        body: { agentID: staticAgent.id, expPriceC: cents(PRICE_C) },
      }),
      await topUp(unconfirmed),
    ];
    // An API key the account made (nothing stops that) is refused the same way on the public API.
    const created = await callRoute(t, ENDPOINTS.createApiKey, {
      headers: unconfirmed,
      body: { name: 'script' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const key = { authorization: `Bearer ${ZApiKeyCreated.parse(created.json()).key}` };
    refusals.push(await buy(key, agent.id, true));
    // A token that says nothing about the address does not pass for a confirmed one.
    const silent = await tokenOf(userId, undefined);
    refusals.push(await buy(silent, agent.id));
    for (const r of refusals) {
      assert.equal(r.statusCode, 403, r.body);
      assert.equal(r.json().errorCode, 'emailNotConfirmed', r.body);
      assert.match(r.json().message, /Confirm your email address first/);
    }
    const books = await booksOf(t, userId);
    assert.equal(books.balanceC, 10_000, 'nothing charged');
    assert.deepEqual(
      books.records.map((r) => r.type),
      ['adjustment'],
    );
    assert.equal((await t.db.query('SELECT 1 FROM leases WHERE user_id = $1', [userId])).length, 0);
    assert.equal((await t.db.query('SELECT 1 FROM crypto_charges WHERE user_id = $1', [userId])).length, 0);

    // Confirmed at the sign-in host: the next token says so and the account learns it at once,
    // even though this API process cached it as unconfirmed a moment ago.
    const confirmed = await tokenOf(userId, true);
    const bought = await buy(confirmed, agent.id);
    assert.equal(bought.statusCode, 201, bought.body);
    assert.equal((await myAccount(confirmed)).emailVerified, true);
    const charge = await topUp(confirmed);
    assert.equal(charge.statusCode, 200, charge.body);
    // The API key now buys too (it carries no claim: the account holds the answer).
    const viaKey = await buy(key, (await buildAgent(t.db, { nodeId, online: true })).id, true);
    assert.equal(viaKey.statusCode, 201, viaKey.body);

    // A later token that says false (an issuer's glitch, an old token) never takes it back.
    const stale = await tokenOf(userId, false);
    assert.equal((await myAccount(stale)).emailVerified, true);
  });

  test('an account first made from a confirmed token is confirmed', async () => {
    const userId = newUserId('confirmed');
    const res = await callRoute(t, ENDPOINTS.createMyAccount, { headers: await tokenOf(userId, true) });
    assert.equal(ZAccount.parse(res.json()).emailVerified, true);
  });

  test('the one sale path refuses it for paid and free sales alike; a block is said first', async () => {
    const ledger = createLedgerService({ db: t.db.db });
    const sale = (userId: string, amountC: number) =>
      t.db.db.transaction((tx) =>
        ledger.charge({ userId, amountC: cents(amountC), type: 'purchase', memo: 'test sale' }, tx),
      );
    const eve = await buildAccount(t.db, { balanceC: 5000, emailVerified: false });
    for (const amountC of [PRICE_C, 0]) {
      await assert.rejects(sale(eve.userId, amountC), (e: { details?: { errorCode?: string } }) => {
        assert.equal(e.details?.errorCode, 'emailNotConfirmed');
        return true;
      });
    }
    const blocked = await buildAccount(t.db, { balanceC: 5000, emailVerified: false, blocked: true });
    await assert.rejects(sale(blocked.userId, PRICE_C), (e: { details?: { errorCode?: string } }) => {
      assert.equal(e.details?.errorCode, 'accountBlocked');
      return true;
    });
    assert.equal((await booksOf(t, eve.userId)).balanceC, 5000);
  });
});
