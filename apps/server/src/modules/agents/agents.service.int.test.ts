import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZAgentListQuery } from '@pm/contracts';
import { leases } from '@pm/db';
import {
  buildAgent,
  buildLease,
  buildNode,
  createTestDatabase,
  newUserId,
  type TestDatabase,
} from '@pm/db/testing';
import { createPricingService } from '../pricing/pricing.service.ts';
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

describe('agents.quoteForPurchase (inside the purchase transaction)', () => {
  test('the locked agent, its active leases and its prices under the rules now', async () => {
    const a = await buildAgent(db, { nodeId, conn: 'cell', stars: 8 });
    await buildLease(db, a.id);
    await buildLease(db, a.id, { untilMs: Date.now() - 1000 });
    const quote = await db.db.transaction((tx) => agents.quoteForPurchase(a.id, tx));
    assert.ok(quote);
    assert.equal(quote.agent.id, a.id);
    assert.deepEqual(
      [quote.priceExcC, quote.priceShrC, quote.activeShared, quote.activeExclusive, quote.isNew],
      [900, 350, 1, 0, true],
    );
    // The shop counts a lapsed lease until leases.expire ends it (within a minute); the quote does not.
    const shown = await agents.getAgent(a.id, newUserId());
    assert.equal(shown.leases.count, 2);
  });

  test('undefined for an unknown, static or never-connected agent; an offline one is quoted (the purchase refuses it)', async () => {
    const stat = await buildAgent(db, { nodeId, isStatic: true });
    const nodeless = await buildAgent(db, { nodeId: null });
    const offline = await buildAgent(db, { nodeId, online: false });
    await db.db.transaction(async (tx) => {
      assert.equal(await agents.quoteForPurchase('nope', tx), undefined);
      assert.equal(await agents.quoteForPurchase(stat.id, tx), undefined);
      assert.equal(await agents.quoteForPurchase(nodeless.id, tx), undefined);
      assert.equal((await agents.quoteForPurchase(offline.id, tx))?.agent.online, false);
    });
  });

  test('prices with the rules the transaction reads, even while the shop still holds the previous list', async () => {
    const a = await buildAgent(db, { nodeId, cc: 'FR', stars: 6 });
    await pricing.currentRules();
    await db.query(`UPDATE pricing_rules SET price_exc_c = 777, price_shr_c = 333 WHERE position = 5`);
    const quote = await db.db.transaction((tx) => agents.quoteForPurchase(a.id, tx));
    assert.deepEqual([quote?.priceExcC, quote?.priceShrC], [777, 333]);
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
      await agents.quoteForPurchase(a.id, tx);
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
      const q = await agents.quoteForPurchase(a.id, tx);
      order.push(`second quoted ${q?.activeExclusive}`);
    });
    await new Promise((r) => setTimeout(r, 200));
    order.push('released');
    release();
    await Promise.all([first, second]);
    assert.deepEqual(order, ['first quoted', 'released', 'first done', 'second quoted 1']);
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
