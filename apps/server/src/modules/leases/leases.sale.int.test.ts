/**
 * The one sale path against a hostile customer (issue 23, hole 3 and hole 8), on the real
 * PostgreSQL server: a double click and Buy Again on a shared proxy buy one share; the same
 * Idempotency-Key sent in parallel answers one lease and charges once (also for the static shop and
 * renew), and a key reused for another request is 409; a blocked customer cannot buy or renew even
 * while an API process still caches them as unblocked, and the auto-renew job does not renew their
 * leases; a private lease that lapsed while another customer bought the agent is never renewed
 * into a second private lease.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS, type EndpointRequest, ZLease, ZRenewResult } from '@pm/contracts';
import { buildAgent, buildLease, buildNode } from '@pm/db/testing';
import { cents } from '@pm/money';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { booksOf, buildCustomer, postLease, setFlatPrices, type TestCustomer } from '../../test/market.ts';
import { callRoute } from '../../test/route.ts';
import { createLedgerService } from '../ledger/ledger.service.ts';
import { createLeaseService } from './leases.service.ts';
import { createSettleService } from './leases.settle.ts';

const [PRIVATE_C, SHARED_C] = [500, 200];
const H = 3600_000;

let t: TestApp;
let nodeId: string;

before(async () => {
  // An API process that cached "not blocked" a minute ago, as another replica may have.
  t = await createTestApp('lease_sale', { payments: false, blockCacheMs: 60_000 });
  nodeId = (await buildNode(t.db)).id;
  await setFlatPrices(t, PRIVATE_C, SHARED_C);
});
after(async () => {
  await t?.close();
});

const withKey = (who: TestCustomer, key: string) => ({
  ...who,
  headers: { ...who.headers, 'idempotency-key': key },
});
const leaseStatic = (who: TestCustomer, body: EndpointRequest<typeof ENDPOINTS.leaseStaticAgent>['body']) =>
  callRoute(t, ENDPOINTS.leaseStaticAgent, { headers: who.headers, body });
const renew = (who: TestCustomer, id: string) =>
  callRoute(t, ENDPOINTS.renewLease, { params: { id }, headers: who.headers });
const charges = async (who: TestCustomer, type = 'purchase') =>
  (await booksOf(t, who.userId)).records.filter((r) => r.type === type).length;
const settle = () =>
  createSettleService({
    db: t.db.db,
    ledger: createLedgerService({ db: t.db.db }),
    leases: createLeaseService({ db: t.db.db }),
  }).settleDueLeases();
const activeLeases = (agentId: string) =>
  t.db.query<{ id: string; user_id: string; exc: boolean }>(
    'SELECT id, user_id, exc FROM leases WHERE agent_id = $1 AND ended_at IS NULL AND until > now()',
    [agentId],
  );

describe('one lease per customer and agent', () => {
  test('a double click on a shared proxy buys one share and charges once', async () => {
    const agent = await buildAgent(t.db, { nodeId });
    const eve = await buildCustomer(t, 10_000, 'double');
    const body = { agentID: agent.id, expPriceC: SHARED_C, exc: false };
    const answers = await Promise.all([postLease(t, eve, body), postLease(t, eve, body)]);
    assert.deepEqual(answers.map((r) => r.statusCode).sort(), [201, 409], answers.map((r) => r.body).join());
    assert.equal(answers.find((r) => r.statusCode === 409)!.json().errorCode, 'agentAlreadyLeased');
    assert.equal((await activeLeases(agent.id)).length, 1);
    assert.equal(await charges(eve), 1);
  });

  test('Buy Again of a shared proxy the customer holds is 409 agentAlreadyLeased; another customer may share', async () => {
    const agent = await buildAgent(t.db, { nodeId });
    const eve = await buildCustomer(t, 10_000, 'again');
    const bob = await buildCustomer(t, 10_000, 'sharer');
    const body = { agentID: agent.id, expPriceC: SHARED_C, exc: false };
    assert.equal((await postLease(t, eve, body)).statusCode, 201);
    const again = await postLease(t, eve, body);
    assert.equal(again.statusCode, 409, again.body);
    assert.equal(again.json().errorCode, 'agentAlreadyLeased');
    assert.equal((await postLease(t, bob, body)).statusCode, 201);
    assert.equal(await charges(eve), 1);
  });
});

describe('Idempotency-Key', () => {
  test('the same key sent five times in parallel answers one lease and charges once; a retry too', async () => {
    const agent = await buildAgent(t.db, { nodeId });
    const eve = withKey(await buildCustomer(t, 10_000, 'idem'), 'buy-1');
    const body = { agentID: agent.id, expPriceC: PRIVATE_C, exc: true };
    const answers = await Promise.all(Array.from({ length: 5 }, () => postLease(t, eve, body)));
    for (const res of answers) assert.equal(res.statusCode, 201, res.body);
    const ids = new Set(answers.map((r) => ZLease.parse(r.json()).id));
    assert.equal(ids.size, 1);
    const retry = await postLease(t, eve, body);
    assert.equal(retry.statusCode, 201, retry.body);
    assert.ok(ids.has(retry.json().id));
    assert.equal(await charges(eve), 1);
    assert.equal((await booksOf(t, eve.userId)).balanceC, 10_000 - PRIVATE_C);
  });

  test('a key reused for another request is 409 idempotencyKeyReused and changes nothing', async () => {
    const [a1, a2] = [await buildAgent(t.db, { nodeId }), await buildAgent(t.db, { nodeId })];
    const eve = withKey(await buildCustomer(t, 10_000, 'reuse'), 'buy-2');
    assert.equal(
      (await postLease(t, eve, { agentID: a1.id, expPriceC: SHARED_C, exc: false })).statusCode,
      201,
    );
    for (const body of [
      { agentID: a2.id, expPriceC: SHARED_C, exc: false },
      { agentID: a1.id, expPriceC: PRIVATE_C, exc: true },
    ]) {
      const res = await postLease(t, eve, body);
      assert.equal(res.statusCode, 409, res.body);
      assert.equal(res.json().errorCode, 'idempotencyKeyReused');
      assert.match(res.json().message, /Idempotency-Key was already used/);
    }
    assert.equal((await activeLeases(a2.id)).length, 0);
    assert.equal(await charges(eve), 1);
    // The same key from another customer is theirs alone.
    const bob = withKey(await buildCustomer(t, 10_000, 'other'), 'buy-2');
    assert.equal(
      (await postLease(t, bob, { agentID: a2.id, expPriceC: SHARED_C, exc: false })).statusCode,
      201,
    );
  });

  test('a refused sale stores nothing: the key works once the balance covers it', async () => {
    const agent = await buildAgent(t.db, { nodeId });
    const eve = withKey(await buildCustomer(t, 100, 'poor'), 'buy-3');
    const body = { agentID: agent.id, expPriceC: PRIVATE_C, exc: true };
    assert.equal((await postLease(t, eve, body)).statusCode, 402);
    await t.db.query('UPDATE accounts SET balance_c = 1000 WHERE user_id = $1', [eve.userId]);
    await t.db.query(
      "INSERT INTO txrecords (user_id, type, amt_c, bal_c, memo) VALUES ($1, 'adjustment', 900, 1000, 'test top-up')",
      [eve.userId],
    );
    assert.equal((await postLease(t, eve, body)).statusCode, 201);
  });

  test('POST /static/lease: the same key in parallel is one static lease and one charge', async () => {
    const agent = await buildAgent(t.db, { nodeId, isStatic: true });
    const eve = withKey(await buildCustomer(t, 10_000, 'static'), 'static-1');
    const body = { agentID: agent.id, expPriceC: PRIVATE_C };
    const answers = await Promise.all(Array.from({ length: 4 }, () => leaseStatic(eve, body)));
    for (const res of answers) assert.equal(res.statusCode, 201, res.body);
    assert.equal(new Set(answers.map((r) => r.json().id)).size, 1);
    assert.equal(await charges(eve), 1);
  });

  test('renew: the same key in parallel renews once; without a key a second renewal is its own', async () => {
    const agent = await buildAgent(t.db, { nodeId });
    const eve = withKey(await buildCustomer(t, 10_000, 'renew'), 'renew-1');
    const lease = await buildLease(t.db, agent.id, {
      userId: eve.userId,
      exc: true,
      start: new Date(Date.now() - 22 * H),
      untilMs: Date.now() + 2 * H,
      purchasePriceC: cents(PRIVATE_C),
    });
    const answers = await Promise.all(Array.from({ length: 4 }, () => renew(eve, lease.id)));
    for (const res of answers) assert.equal(res.statusCode, 200, res.body);
    const untils = new Set(answers.map((r) => ZRenewResult.parse(r.json()).lease.until));
    assert.equal(untils.size, 1);
    assert.equal(Date.parse([...untils][0]!), lease.until.getTime() + 24 * H);
    assert.equal(await charges(eve, 'renewal'), 1);
    const other = await renew(withKey(eve, 'renew-2'), lease.id);
    assert.equal(other.statusCode, 409, 'outside the last 5 hours now');
  });
});

describe('a blocked customer', () => {
  test('cannot buy, buy static or renew, even where the API still caches them as unblocked', async () => {
    const [agent, staticAgent] = [
      await buildAgent(t.db, { nodeId }),
      await buildAgent(t.db, { nodeId, isStatic: true }),
    ];
    const eve = await buildCustomer(t, 10_000, 'blocked');
    const lease = await buildLease(t.db, (await buildAgent(t.db, { nodeId })).id, {
      userId: eve.userId,
      exc: true,
      start: new Date(Date.now() - 22 * H),
      untilMs: Date.now() + 2 * H,
      purchasePriceC: cents(PRIVATE_C),
    });
    // A request while unblocked: this API process now trusts that for a minute.
    assert.equal((await callRoute(t, ENDPOINTS.listLeases, { headers: eve.headers })).statusCode, 200);
    await t.db.query('UPDATE accounts SET blocked = true WHERE user_id = $1', [eve.userId]);
    const bought = await postLease(t, eve, { agentID: agent.id, expPriceC: PRIVATE_C, exc: true });
    assert.equal(bought.statusCode, 403, bought.body);
    assert.equal(bought.json().errorCode, 'accountBlocked');
    const stat = await leaseStatic(eve, { agentID: staticAgent.id, expPriceC: PRIVATE_C });
    assert.equal(stat.statusCode, 403, stat.body);
    const renewed = await renew(eve, lease.id);
    assert.equal(renewed.statusCode, 403, renewed.body);
    const books = await booksOf(t, eve.userId);
    assert.equal(books.balanceC, 10_000);
    assert.equal((await activeLeases(agent.id)).length + (await activeLeases(staticAgent.id)).length, 0);
  });

  test('the auto-renew job skips their leases until the end and then ends them; unblocked in time, it renews', async () => {
    const [kept, lost] = [
      await buildCustomer(t, 10_000, 'unblocked'),
      await buildCustomer(t, 10_000, 'stays'),
    ];
    const leases = [];
    for (const who of [kept, lost]) {
      leases.push(
        await buildLease(t.db, (await buildAgent(t.db, { nodeId })).id, {
          userId: who.userId,
          exc: true,
          start: new Date(Date.now() - 24 * H + 60_000),
          untilMs: Date.now() + 60_000,
          purchasePriceC: cents(PRIVATE_C),
          autoRenew: true,
        }),
      );
      await t.db.query('UPDATE accounts SET blocked = true WHERE user_id = $1', [who.userId]);
    }
    const first = await settle();
    assert.ok(
      !first.renewed.includes(leases[0]!.id) && !first.renewed.includes(leases[1]!.id),
      'not renewed',
    );
    assert.ok(!first.ended.includes(leases[0]!.id), 'still running until its end');
    // Staff unblock one of them before the end: the next run renews it.
    await t.db.query('UPDATE accounts SET blocked = false WHERE user_id = $1', [kept.userId]);
    const second = await settle();
    assert.ok(second.renewed.includes(leases[0]!.id));
    assert.ok(!second.renewed.includes(leases[1]!.id));
    assert.equal(await charges(kept, 'renewal'), 1);
    assert.equal(await charges(lost, 'renewal'), 0);
    // Past its end the blocked one is ended, not renewed.
    await t.db.query("UPDATE leases SET until = now() - interval '1 second' WHERE id = $1", [leases[1]!.id]);
    const third = await settle();
    assert.ok(third.ended.includes(leases[1]!.id));
    const [row] = await t.db.query<{ end_reason: string }>('SELECT end_reason FROM leases WHERE id = $1', [
      leases[1]!.id,
    ]);
    assert.equal(row!.end_reason, 'expired');
    assert.equal(await charges(lost, 'renewal'), 0);
  });
});

describe('hole 3: auto-renew after the end', () => {
  test('a private lease ended 30 s ago, another customer buys, settle runs: exactly one active private lease', async () => {
    const agent = await buildAgent(t.db, { nodeId });
    const alice = await buildCustomer(t, 10_000, 'lapsed');
    const bob = await buildCustomer(t, 10_000, 'buyer');
    const lapsed = await buildLease(t.db, agent.id, {
      userId: alice.userId,
      exc: true,
      start: new Date(Date.now() - 24 * H - 30_000),
      untilMs: Date.now() - 30_000,
      purchasePriceC: cents(PRIVATE_C),
      autoRenew: true,
    });
    const bought = await postLease(t, bob, { agentID: agent.id, expPriceC: PRIVATE_C, exc: true });
    assert.equal(bought.statusCode, 201, bought.body);
    await settle();
    const active = await activeLeases(agent.id);
    assert.deepEqual(
      active.map((l) => [l.user_id, l.exc]),
      [[bob.userId, true]],
    );
    assert.equal(await charges(alice, 'renewal'), 0);
    const [row] = await t.db.query<{ end_reason: string }>('SELECT end_reason FROM leases WHERE id = $1', [
      lapsed.id,
    ]);
    assert.equal(row!.end_reason, 'expired');
  });

  test('the shop lists an agent whose only lease lapsed, as the sale counts it', async () => {
    const agent = await buildAgent(t.db, { nodeId });
    const bob = await buildCustomer(t, 0, 'browser');
    await buildLease(t.db, agent.id, { exc: true, untilMs: Date.now() - 30_000 });
    const shop = await callRoute(t, ENDPOINTS.listAgents, {
      query: { cc: 'US', limit: 100 },
      headers: bob.headers,
    });
    assert.ok(
      shop.json().agents.some((a: { id: string }) => a.id === agent.id),
      'listed while its only lease lapsed',
    );
    const one = await callRoute(t, ENDPOINTS.getAgent, { params: { id: agent.id }, headers: bob.headers });
    assert.equal(one.json().leases.count, 0);
  });

  test('a lapsed lease whose slot is still free is renewed once (workers were down a few minutes)', async () => {
    const agent = await buildAgent(t.db, { nodeId });
    const alice = await buildCustomer(t, 10_000, 'late');
    const lease = await buildLease(t.db, agent.id, {
      userId: alice.userId,
      exc: false,
      start: new Date(Date.now() - 24 * H - 30_000),
      untilMs: Date.now() - 30_000,
      purchasePriceC: cents(SHARED_C),
      autoRenew: true,
    });
    assert.ok((await settle()).renewed.includes(lease.id));
    assert.equal(await charges(alice, 'renewal'), 1);
  });
});
