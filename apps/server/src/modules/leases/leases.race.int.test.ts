/**
 * The purchase race on the real PostgreSQL server: 200 simultaneous `POST /leases` of one agent by
 * 50 customers, private and shared mixed, some of them too poor, sent alternately to two API
 * replicas on the one database (within a replica purchases of an agent take turns in memory; across
 * replicas only the agent's row lock orders them). The agent ends with exactly one private lease
 * or at most four shared ones held by four different customers, every balance equals the sum of
 * its ledger records, and nobody is charged without a lease.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MAX_SHARED_LEASES } from '@pm/contracts';
import { buildAgent, buildNode } from '@pm/db/testing';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../app.ts';
import { createTestApp, TEST_AUDIENCE, type TestApp } from '../../test/app.ts';
import { booksOf, buildCustomer, postLease, setFlatPrices, type TestCustomer } from '../../test/market.ts';

const CUSTOMERS = 50;
const ATTEMPTS = 200;
const [PRIVATE_C, SHARED_C] = [500, 200];

let t: TestApp;
let replica: FastifyInstance;
let nodeId: string;
let customers: (TestCustomer & { startC: number })[];

before(async () => {
  t = await createTestApp('lease_race', { payments: false });
  replica = await buildApp({
    db: t.db,
    oidc: {
      issuer: t.issuer.issuer,
      audience: TEST_AUDIENCE,
      algorithms: ['ES256'],
      permissionsClaim: 'permissions',
    },
    logLevel: 'silent',
  });
  await replica.ready();
  nodeId = (await buildNode(t.db)).id;
  await setFlatPrices(t, PRIVATE_C, SHARED_C);
  customers = [];
  for (let i = 0; i < CUSTOMERS; i++) {
    // One in five cannot pay even the shared price; the rest can pay a few leases.
    const startC = i % 5 === 4 ? SHARED_C - 1 : 5000;
    customers.push({ ...(await buildCustomer(t, startC, `racer${i}`)), startC });
  }
});
after(async () => {
  await replica?.close();
  await t?.close();
});

/** A small seeded generator, so a failing mix can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

async function race(privateShare: number, seed: number) {
  const agent = await buildAgent(t.db, { nodeId });
  const next = random(seed);
  const attempts = Array.from({ length: ATTEMPTS }, (_, i) => {
    const exc = next() < privateShare;
    return { who: customers[i % CUSTOMERS]!, exc };
  });
  const answers = await Promise.all(
    attempts.map(({ who, exc }, i) =>
      postLease(i % 2 === 0 ? t.app : replica, who, {
        agentID: agent.id,
        expPriceC: exc ? PRIVATE_C : SHARED_C,
        exc,
      }),
    ),
  );
  const statuses = new Map<number, number>();
  for (const res of answers) {
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    if (res.statusCode === 409) assert.equal(res.json().errorCode, 'agentAlreadyLeased', res.body);
    else assert.ok([201, 402].includes(res.statusCode), res.body);
  }
  const leases = await t.db.query<{ exc: boolean }>('SELECT exc FROM leases WHERE agent_id = $1', [agent.id]);
  const privates = leases.filter((l) => l.exc).length;
  const shared = leases.length - privates;
  assert.ok(
    (privates === 1 && shared === 0) || (privates === 0 && shared >= 1 && shared <= MAX_SHARED_LEASES),
    `${privates} private and ${shared} shared leases`,
  );
  assert.equal(statuses.get(201) ?? 0, leases.length, 'one 201 per lease');
  // One customer holds at most one lease on an agent, whichever replica each click reached.
  const doubled = await t.db.query<{ user_id: string }>(
    'SELECT user_id FROM leases WHERE agent_id = $1 GROUP BY user_id HAVING count(*) > 1',
    [agent.id],
  );
  assert.deepEqual(doubled, [], 'no customer holds two leases on the agent');
  return `${privates} private, ${shared} shared; answers ${JSON.stringify(Object.fromEntries(statuses))}`;
}

/** Every balance equals its ledger; every purchase record belongs to a lease at that price. */
async function assertBooks(): Promise<void> {
  for (const c of customers) {
    const books = await booksOf(t, c.userId);
    assert.equal(books.balanceC, books.ledgerSumC, `${c.userId}: balance and ledger agree`);
    const purchases = books.records.filter((r) => r.type === 'purchase');
    const leases = await t.db.query<{ id: string; purchase_price_c: string }>(
      'SELECT id, purchase_price_c FROM leases WHERE user_id = $1',
      [c.userId],
    );
    assert.equal(purchases.length, leases.length, `${c.userId}: one charge per lease`);
    for (const lease of leases) {
      const charge = purchases.find((p) => p.memo.includes(lease.id));
      assert.equal(
        charge?.amtC,
        -Number(lease.purchase_price_c),
        `${c.userId}: lease ${lease.id} charged its price`,
      );
    }
    assert.equal(books.balanceC, c.startC + purchases.reduce((s, p) => s + p.amtC, 0));
    if (c.startC < SHARED_C) assert.equal(leases.length, 0, 'too poor for any lease');
  }
}

test('200 simultaneous purchases of one agent, half of them private', async (ctx) => {
  ctx.diagnostic(await race(0.5, 1));
  await assertBooks();
});

test('mostly shared, a few private attempts among them', async (ctx) => {
  ctx.diagnostic(await race(0.1, 2));
  await assertBooks();
});

test('mostly private, a few shared attempts among them', async (ctx) => {
  ctx.diagnostic(await race(0.9, 3));
  await assertBooks();
});
