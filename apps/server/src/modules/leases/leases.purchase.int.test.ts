/** `POST /leases` through the app on PostgreSQL: every rule and every refusal's body, and the books after each. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ENDPOINTS, LEASE_DURATION_MS, ZLease, ZPurchaseErrorBody } from '@pm/contracts';
import type { agents } from '@pm/db';
import { buildAgent, buildNode, newUserId } from '@pm/db/testing';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { booksOf, buildCustomer, postLease, setFlatPrices, type TestCustomer } from '../../test/market.ts';
import { callRoute, callRouteUnchecked } from '../../test/route.ts';

let t: TestApp;
let nodeId: string;

before(async () => {
  t = await createTestApp('lease_purchase', { payments: false });
  nodeId = (await buildNode(t.db, { authPortMin: 41000, authPortMax: 41050 })).id;
  await setFlatPrices(t, 500, 200);
});
after(async () => {
  await t?.close();
});

const agent = async (o: Partial<typeof agents.$inferInsert> = {}) => buildAgent(t.db, { nodeId, ...o });
const leasesOn = async (agentId: string) =>
  t.db.query<{ user_id: string; exc: boolean }>('SELECT user_id, exc FROM leases WHERE agent_id = $1', [
    agentId,
  ]);

/** Asserts a 409 with `errorCode` and that the buyer's books did not move. */
async function assertRefused(who: TestCustomer, body: Record<string, unknown>, errorCode: string) {
  const before = await booksOf(t, who.userId);
  const res = await postLease(t, who, body);
  assert.equal(res.statusCode, 409, res.body);
  const error = ZPurchaseErrorBody.parse(res.json());
  assert.equal(error.error, 'CONFLICT');
  assert.equal(error.errorCode, errorCode);
  assert.deepEqual(await booksOf(t, who.userId), before);
  return error;
}

test('a private purchase: 201 with the lease, the price debited by a record naming the lease, the agent sold', async () => {
  const buyer = await buildCustomer(t, 10_000);
  const a = await agent({ ip: '198.51.100.23' });
  const res = await postLease(t, buyer, { agentID: a.id, expPriceC: 500, exc: true });
  assert.equal(res.statusCode, 201, res.body);
  const lease = ZLease.parse(res.json());
  assert.equal(lease.agentId, a.id);
  assert.equal(lease.agent, `/agents/${a.id}`);
  assert.equal(lease.user, buyer.userId);
  assert.equal(lease.exc, true);
  assert.equal(lease.static, false);
  assert.equal(lease.purchasePriceC, 500);
  assert.equal(lease.autoRenew, false);
  assert.equal(lease.note, '');
  assert.equal(lease.info.ip, '198.51.100.23');
  assert.equal(Date.parse(lease.until) - Date.parse(lease.start), LEASE_DURATION_MS);
  assert.match(lease.socks.user, /^[a-z0-9]{10}$/);
  assert.equal(lease.socks.pwd.length, 16);

  const books = await booksOf(t, buyer.userId);
  assert.equal(books.balanceC, 9500);
  assert.equal(books.ledgerSumC, books.balanceC);
  const record = books.records.at(-1)!;
  assert.equal(record.type, 'purchase');
  assert.equal(record.amtC, -500);
  assert.match(record.memo, new RegExp(`Lease ${lease.id}\\b`));

  const [row] = await t.db.query<{ last_sold_at: Date | null }>(
    'SELECT last_sold_at FROM agents WHERE id = $1',
    [a.id],
  );
  assert.ok(row?.last_sold_at, 'the sale ends the agent being New');
});

test('shared leases: four sharers at the shared price, the fifth is agentAlreadyLeased', async () => {
  const a = await agent();
  for (let i = 0; i < 4; i++) {
    const res = await postLease(t, await buildCustomer(t, 1000), {
      agentID: a.id,
      expPriceC: 200,
      exc: false,
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(ZLease.parse(res.json()).exc, false);
  }
  await assertRefused(
    await buildCustomer(t, 1000),
    { agentID: a.id, expPriceC: 200, exc: false },
    'agentAlreadyLeased',
  );
  assert.equal((await leasesOn(a.id)).length, 4);
});

test('private after shared, shared after private and private after private are agentAlreadyLeased', async () => {
  const [x, y] = [await buildCustomer(t, 5000), await buildCustomer(t, 5000)];
  const shared = await agent();
  assert.equal((await postLease(t, x, { agentID: shared.id, expPriceC: 200, exc: false })).statusCode, 201);
  await assertRefused(y, { agentID: shared.id, expPriceC: 500, exc: true }, 'agentAlreadyLeased');

  const exclusive = await agent();
  assert.equal((await postLease(t, x, { agentID: exclusive.id, expPriceC: 500, exc: true })).statusCode, 201);
  await assertRefused(y, { agentID: exclusive.id, expPriceC: 200, exc: false }, 'agentAlreadyLeased');
  await assertRefused(y, { agentID: exclusive.id, expPriceC: 500, exc: true }, 'agentAlreadyLeased');
  await assertRefused(x, { agentID: exclusive.id, expPriceC: 500, exc: true }, 'agentAlreadyLeased');
  assert.deepEqual(await leasesOn(exclusive.id), [{ user_id: x.userId, exc: true }]);
});

test('agentNotFound: unknown, static, offline, or never connected to a gateway', async () => {
  const buyer = await buildCustomer(t, 5000);
  const ids = [
    'no-such-agent',
    (await agent({ isStatic: true })).id,
    (await agent({ online: false })).id,
    (await agent({ nodeId: null })).id,
  ];
  for (const id of ids)
    await assertRefused(buyer, { agentID: id, expPriceC: 500, exc: true }, 'agentNotFound');
});

test('402 when the balance is short: balance, ledger, leases and the New flag untouched', async () => {
  const poor = await buildCustomer(t, 499);
  const a = await agent();
  const before = await booksOf(t, poor.userId);
  const res = await postLease(t, poor, { agentID: a.id, expPriceC: 500, exc: true });
  assert.equal(res.statusCode, 402, res.body);
  assert.equal(res.json().error, 'PAYMENT_REQUIRED');
  assert.deepEqual(await booksOf(t, poor.userId), before);
  assert.deepEqual(await leasesOn(a.id), []);
  const [row] = await t.db.query<{ last_sold_at: Date | null }>(
    'SELECT last_sold_at FROM agents WHERE id = $1',
    [a.id],
  );
  assert.equal(row?.last_sold_at, null);
  // Enough for the shared price: the same customer may buy that.
  assert.equal((await postLease(t, poor, { agentID: a.id, expPriceC: 200, exc: false })).statusCode, 201);

  // Signed in but without an account yet: a balance of zero.
  const stranger = { userId: newUserId('stranger'), headers: {} as Record<string, string> };
  stranger.headers = await t.auth(stranger.userId);
  const none = await postLease(t, stranger, { agentID: (await agent()).id, expPriceC: 200, exc: false });
  assert.equal(none.statusCode, 402, none.body);
});

test('bad bodies are 400s naming the field; no token is 401', async () => {
  const buyer = await buildCustomer(t, 5000);
  const a = await agent();
  const cases: [Record<string, unknown>, string][] = [
    [{ agentID: a.id, expPriceC: 500 }, 'exc'],
    [{ agentID: a.id, expPriceC: -1, exc: true }, 'expPriceC'],
    [{ agentID: a.id, expPriceC: 1.5, exc: true }, 'expPriceC'],
    [{ agentID: '', expPriceC: 500, exc: true }, 'agentID'],
    [{ agentID: a.id, expPriceC: 500, exc: true, probe: 'yes' }, 'probe'],
    [{ agentID: a.id, expPriceC: 500, exc: true, extra: 1 }, 'extra'],
  ];
  for (const [body, field] of cases) {
    const res = await postLease(t, buyer, body);
    assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
    assert.equal(res.json().field, field);
  }
  const anonymous = await callRouteUnchecked(t, ENDPOINTS.createLease, {
    body: { agentID: a.id, expPriceC: 500, exc: true },
  });
  assert.equal(anonymous.statusCode, 401);
  assert.deepEqual(await leasesOn(a.id), []);
});

test('the bought lease gets its no-auth port (POST /authport/create)', async () => {
  const buyer = await buildCustomer(t, 5000);
  const lease = ZLease.parse(
    (await postLease(t, buyer, { agentID: (await agent()).id, expPriceC: 500, exc: true })).json(),
  );
  const res = await callRoute(t, ENDPOINTS.createAuthPort, {
    params: { id: lease.id },
    headers: buyer.headers,
    body: '127.0.0.9',
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().authPort.whitelist, '127.0.0.9');
});

// Last: it changes the price list.
test('priceChanged both ways, with the current prices; after a price change the new price buys', async () => {
  const buyer = await buildCustomer(t, 5000);
  const a = await agent();
  for (const [expPriceC, exc] of [
    [499, true],
    [501, true],
    [200, true],
    [500, false],
  ] as const) {
    const error = await assertRefused(buyer, { agentID: a.id, expPriceC, exc }, 'priceChanged');
    assert.equal(error.priceExcC, 500);
    assert.equal(error.priceShrC, 200);
  }
  // Staff raise the prices between the buyer's look at the shop and the purchase.
  await setFlatPrices(t, 650, 250);
  const error = await assertRefused(buyer, { agentID: a.id, expPriceC: 500, exc: true }, 'priceChanged');
  assert.deepEqual([error.priceExcC, error.priceShrC], [650, 250]);
  // And lowered: a price above the current one is refused as well.
  await setFlatPrices(t, 400, 150);
  await assertRefused(buyer, { agentID: a.id, expPriceC: 650, exc: true }, 'priceChanged');
  const res = await postLease(t, buyer, { agentID: a.id, expPriceC: 400, exc: true });
  assert.equal(res.statusCode, 201, res.body);
  assert.equal((await booksOf(t, buyer.userId)).balanceC, 4600);
});
