import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isAppError, ZAgentListQuery } from '@pm/contracts';
import { leases } from '@pm/db';
import {
  buildAgent,
  buildLease,
  buildNode,
  createTestDatabase,
  newUserId,
  type TestDatabase,
} from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import { createPricingService } from '../pricing/pricing.service.ts';
import type { SaleAsk } from './agents.sale.ts';
import { type AgentsService, createAgentsService } from './agents.service.ts';

let db: TestDatabase;
let agents: AgentsService;
let pricing: ReturnType<typeof createPricingService>;
let nowMs = Date.parse('2026-11-20T12:00:00Z');
let nodeId: string;
const DAY = 86_400_000;

before(async () => {
  db = await createTestDatabase('agents_service');
  pricing = createPricingService({ db: db.db });
  agents = createAgentsService({ db: db.db, pricing, now: () => nowMs });
  nodeId = (await buildNode(db)).id;
});
after(async () => {
  await db?.drop();
});

const query = (q: Record<string, string> = {}) => ZAgentListQuery.parse({ limit: '100', ...q });

const ask = (o: Partial<SaleAsk> = {}): SaleAsk => ({ exc: false, static: false, userId: newUserId(), ...o });

/** The refusal's errorCode, or 'ok'. */
async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    if (!isAppError(e)) throw e;
    return String(e.details?.errorCode ?? e.code);
  }
}

describe('agents.reserveForSale (the one sale path, inside its transaction)', () => {
  test('the locked agent, its active leases and its prices under the rules now', async () => {
    const a = await buildAgent(db, { nodeId, conn: 'cell', stars: 8 });
    await buildLease(db, a.id);
    // Lapsed at the service's clock, which the sale's SQL reads (and at the database's).
    await buildLease(db, a.id, { untilMs: nowMs - 1000 });
    const quote = await db.db.transaction((tx) => agents.reserveForSale(a.id, ask(), tx));
    assert.equal(quote.agent.id, a.id);
    assert.deepEqual(
      [
        quote.priceExcC,
        quote.priceShrC,
        quote.priceC,
        quote.activeShared,
        quote.activeExclusive,
        quote.isNew,
      ],
      [900, 350, 350, 1, 0, true],
    );
    // The shop counts as the sale does: the lapsed lease is no longer active.
    const shown = await agents.getAgent(a.id, newUserId());
    assert.equal(shown.leases.count, 1);
  });

  test('agentNotFound for an unknown, never-connected or offline agent, or one of the other shop', async () => {
    const stat = await buildAgent(db, { nodeId, isStatic: true });
    const nodeless = await buildAgent(db, { nodeId: null });
    const offline = await buildAgent(db, { nodeId, online: false });
    const plain = await buildAgent(db, { nodeId });
    await db.db.transaction(async (tx) => {
      for (const [id, o] of [
        ['nope', {}],
        [stat.id, {}],
        [nodeless.id, {}],
        [offline.id, {}],
        [plain.id, { static: true, exc: true }],
      ] as const) {
        assert.equal(await refusal(agents.reserveForSale(id, ask(o), tx)), 'agentNotFound', id);
      }
      assert.equal(await refusal(agents.reserveForSale(stat.id, ask({ static: true, exc: true }), tx)), 'ok');
    });
  });

  test('full for the kind, or the buyer already holds a lease on it: agentAlreadyLeased; a renewal leaves itself out', async () => {
    const a = await buildAgent(db, { nodeId });
    const holder = newUserId();
    const held = await buildLease(db, a.id, { userId: holder });
    const inTx = (o: Partial<SaleAsk>) => db.db.transaction((tx) => agents.reserveForSale(a.id, ask(o), tx));
    assert.equal(await refusal(inTx({})), 'ok', 'a second sharer');
    assert.equal(await refusal(inTx({ exc: true })), 'agentAlreadyLeased', 'private while shared');
    assert.equal(await refusal(inTx({ userId: holder })), 'agentAlreadyLeased', 'the same customer again');
    assert.equal(await refusal(inTx({ userId: holder, exc: true, renewing: held.id })), 'ok');
    assert.equal(await refusal(agents.checkForSale(a.id, ask({ userId: holder }))), 'agentAlreadyLeased');
    // A renewal may find the agent offline (the customer keeps what they hold).
    await db.query('UPDATE agents SET online = false WHERE id = $1', [a.id]);
    assert.equal(await refusal(inTx({ userId: holder, renewing: held.id })), 'ok');
    assert.equal(await refusal(inTx({})), 'agentNotFound');
  });

  test('prices with the rules the transaction reads, even while the shop still holds the previous list', async () => {
    const a = await buildAgent(db, { nodeId, cc: 'FR', stars: 6 });
    await pricing.currentRules();
    await db.query(`UPDATE pricing_rules SET price_exc_c = 777, price_shr_c = 333 WHERE position = 5`);
    const quote = await db.db.transaction((tx) => agents.reserveForSale(a.id, ask(), tx));
    assert.deepEqual([quote.priceExcC, quote.priceShrC], [777, 333]);
    const listed = await agents.listAgents(query({ cc: 'FR' }), newUserId());
    assert.equal(listed.agents[0]?.priceExcC, 600, 'the shop may show the list it read a moment ago');
    pricing.clearCache();
    const after = await agents.listAgents(query({ cc: 'FR' }), newUserId(), { fresh: true });
    assert.equal(after.agents[0]?.priceExcC, 777);
    await db.query(`UPDATE pricing_rules SET price_exc_c = 600, price_shr_c = 250 WHERE position = 5`);
    pricing.clearCache();
  });

  test('holds the agent row lock: a second purchase of the agent waits for the first to finish', async () => {
    const a = await buildAgent(db, { nodeId });
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => {
      locked = r;
    });
    const first = db.db.transaction(async (tx) => {
      await agents.reserveForSale(a.id, ask({ exc: true }), tx);
      order.push('first quoted');
      locked();
      await held;
      // In this transaction: another connection's insert would wait for the agent row lock held here.
      await tx.insert(leases).values({
        id: 'lock-0001',
        userId: newUserId(),
        agentId: a.id,
        exc: true,
        until: new Date(Date.now() + DAY),
        socksUser: 'lock-test',
        socksPwd: 'pwd',
      });
      order.push('first done');
    });
    await isLocked;
    const second = db.db.transaction(async (tx) => {
      order.push(`second ${await refusal(agents.reserveForSale(a.id, ask(), tx))}`);
    });
    // The second transaction waits on the first one's row lock before it is released.
    await waitFor(
      async () =>
        (
          await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          )
        )[0]!.n > 0,
      { timeoutMs: 5000, what: 'the second sale waits on the lock' },
    );
    order.push('released');
    release();
    await Promise.all([first, second]);
    assert.deepEqual(order, ['first quoted', 'released', 'first done', 'second agentAlreadyLeased']);
  });
});

describe('agents.markSold', () => {
  test('the agent stops being New for 30 days: worn, priced by the rules for sold agents, out of fresh=true at once', async () => {
    const a = await buildAgent(db, { nodeId, cc: 'IT', stars: 7 });
    const me = newUserId();
    const before = await agents.listAgents(query({ cc: 'IT', fresh: 'true' }), me);
    assert.deepEqual(
      before.agents.map((x) => [x.id, x.leases.worn, x.priceExcC]),
      [[a.id, false, 600]],
    );
    await db.db.transaction((tx) => agents.markSold(a.id, tx));
    const rows = await db.query<{ last_sold_at: Date }>('SELECT last_sold_at FROM agents WHERE id = $1', [
      a.id,
    ]);
    assert.equal(rows[0]?.last_sold_at.getTime(), nowMs);
    // No fresh read asked for: the sale in this process dropped the shared pages.
    assert.equal((await agents.listAgents(query({ cc: 'IT', fresh: 'true' }), me)).total, 0);
    const sold = await agents.listAgents(query({ cc: 'IT', fresh: 'false' }), me);
    assert.deepEqual(
      sold.agents.map((x) => [x.id, x.leases.worn, x.priceExcC]),
      [[a.id, true, 500]],
    );
    nowMs += 31 * DAY;
    agents.clearCaches();
    const later = await agents.listAgents(query({ cc: 'IT', fresh: 'true' }), me);
    assert.deepEqual(
      later.agents.map((x) => [x.id, x.leases.worn]),
      [[a.id, false]],
    );
    nowMs -= 31 * DAY;
  });
});

describe('agents.getAgent (one proxy, shared for the window like a page)', () => {
  test("answered from the window until fresh or a sale in this process; the caller's lease shown after it", async () => {
    const a = await buildAgent(db, { nodeId, cc: 'IT', isp: 'First Net' });
    const me = newUserId();
    assert.equal((await agents.getAgent(a.id, me)).loc.isp, 'First Net');
    await db.query(`UPDATE agents SET isp = 'Second Net' WHERE id = $1`, [a.id]);
    assert.equal((await agents.getAgent(a.id, me)).loc.isp, 'First Net');
    assert.equal((await agents.getAgent(a.id, me, { fresh: true })).loc.isp, 'Second Net');
    await db.query(`UPDATE agents SET isp = 'Third Net' WHERE id = $1`, [a.id]);
    await buildLease(db, a.id, { userId: me });
    await db.db.transaction((tx) => agents.markSold(a.id, tx));
    const after = await agents.getAgent(a.id, me);
    assert.deepEqual([after.loc.isp, after.leases.count, after.used, after.ip], ['Third Net', 1, true, a.ip]);
  });
});

describe('agents.active_shared / active_exclusive (kept by a trigger on leases)', () => {
  test('follow every lease that starts, ends, is deleted or changes kind', async () => {
    const a = await buildAgent(db, { nodeId });
    const counts = async () =>
      (
        await db.query<{ s: number; e: number }>(
          'SELECT active_shared AS s, active_exclusive AS e FROM agents WHERE id = $1',
          [a.id],
        )
      )[0];
    const one = await buildLease(db, a.id);
    const two = await buildLease(db, a.id);
    await buildLease(db, a.id, { endedAt: new Date() });
    assert.deepEqual(await counts(), { s: 2, e: 0 });
    await db.query('UPDATE leases SET exc = true WHERE id = $1', [one.id]);
    assert.deepEqual(await counts(), { s: 1, e: 1 });
    await db.query("UPDATE leases SET until = until + interval '1 hour' WHERE id = $1", [two.id]);
    assert.deepEqual(await counts(), { s: 1, e: 1 }, 'other columns leave the counts alone');
    await db.query('UPDATE leases SET ended_at = now() WHERE id = $1', [one.id]);
    await db.query('UPDATE leases SET ended_at = now() WHERE id = $1', [one.id]);
    assert.deepEqual(await counts(), { s: 1, e: 0 }, 'ending twice counts once');
    await db.query('DELETE FROM leases WHERE id = $1', [two.id]);
    assert.deepEqual(await counts(), { s: 0, e: 0 });
  });
});
