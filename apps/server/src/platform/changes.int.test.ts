import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZAgentListQuery } from '@pm/contracts';
import { buildAgent, buildNode, createTestDatabase, newUserId, type TestDatabase } from '@pm/db/testing';
import { cents } from '@pm/money';
import { waitFor } from '@pm/testkit';
import { type Composition, compose } from '../compose.ts';
import { createLogger } from './logger.ts';

/** Two API processes on one database, as two hosts would run them: caches kept a minute. */
let db: TestDatabase;
let a: Composition;
let b: Composition;

const query = (q: Record<string, string>) => ZAgentListQuery.parse({ limit: '100', ...q });

before(async () => {
  db = await createTestDatabase('changes_shared');
  const process = () => {
    const c = compose({ db, log: createLogger({ level: 'silent' }), settings: { shopCacheMs: 60_000 } });
    return c;
  };
  a = process();
  b = process();
  await a.changes.start();
  await b.changes.start();
});
after(async () => {
  await a?.close();
  await b?.close();
  await db?.drop();
});

describe('caches are cleared in every process after the commit (NOTIFY server_changes)', () => {
  test('a price list saved through process B prices the shop of process A within 2 s', async () => {
    const before = await a.services.pricing.currentRules();
    const { rules } = await b.services.pricing.getRules();
    const changed = rules.map((r) => ({ ...r, priceExcC: cents(r.priceExcC + 111) }));
    await b.services.pricing.replaceRules(changed, newUserId('staff'));
    await waitFor(
      async () => {
        const now = await a.services.pricing.currentRules();
        return now[0]?.priceExcC === (before[0]?.priceExcC ?? 0) + 111;
      },
      { timeoutMs: 2000, what: 'process A prices with the new list' },
    );
  });

  test('a sale recorded by process B leaves the fresh shop of process A within 2 s', async () => {
    const node = await buildNode(db);
    const agent = await buildAgent(db, { nodeId: node.id, cc: 'IT', stars: 7 });
    const me = newUserId();
    const fresh = query({ cc: 'IT', fresh: 'true' });
    assert.equal((await a.services.agents.listAgents(fresh, me)).total, 1);
    await db.db.transaction((tx) => b.services.agents.markSold(agent.id, tx));
    await waitFor(async () => (await a.services.agents.listAgents(fresh, me)).total === 0, {
      timeoutMs: 2000,
      what: 'process A no longer shows the sold agent as New',
    });
  });

  test('a rolled-back sale notifies nobody: the page stays cached', async () => {
    const node = await buildNode(db);
    const agent = await buildAgent(db, { nodeId: node.id, cc: 'FR', stars: 7 });
    const me = newUserId();
    const fresh = query({ cc: 'FR', fresh: 'true' });
    assert.equal((await a.services.agents.listAgents(fresh, me)).total, 1);
    // Written behind the cache's back: only an invalidation would make A read it.
    await db.query('UPDATE agents SET last_sold_at = now() WHERE id = $1', [agent.id]);
    await assert.rejects(
      db.db.transaction(async (tx) => {
        await b.services.agents.markSold(agent.id, tx);
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    await new Promise((r) => setTimeout(r, 300)); // sleeps: nothing may invalidate the page; absence needs a window
    assert.equal((await a.services.agents.listAgents(fresh, me)).total, 1);
  });

  test('one agent changed (topic agent): read anew at once here and within 2 s in process A; others stay', async () => {
    const node = await buildNode(db);
    const [changed, other] = [
      await buildAgent(db, { nodeId: node.id }),
      await buildAgent(db, { nodeId: node.id }),
    ];
    const me = newUserId();
    const isp = async (c: Composition, id: string) => (await c.services.agents.getAgent(id, me)).loc.isp;
    const before = {
      a: await isp(a, changed.id),
      b: await isp(b, changed.id),
      other: await isp(a, other.id),
    };
    // Written behind the caches' back, as the gateway writes the exit a purchase's probe found.
    await db.query(`UPDATE agents SET isp = 'Moved Net' WHERE id IN ($1, $2)`, [changed.id, other.id]);
    assert.equal(await isp(b, changed.id), before.b, 'process B answers from its window');
    await b.changes.publish('agent', db.db, changed.id);
    assert.equal(await isp(b, changed.id), 'Moved Net', 'the publishing process reads it at once');
    await waitFor(async () => (await isp(a, changed.id)) === 'Moved Net', {
      timeoutMs: 2000,
      what: 'process A reads the changed agent anew',
    });
    assert.notEqual(before.a, 'Moved Net');
    assert.equal(await isp(a, other.id), before.other, 'another agent stays in the window');
  });
});
