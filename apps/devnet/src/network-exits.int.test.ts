/**
 * The demo network answers purchase probes through its real gateway and agents, and `moveExit`
 * changes what the next probe sees of an agent's exit (how the devnet causes agentInfoChanged).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import { demoIdentities } from './agents.ts';
import { type DemoNetwork, startDemoNetwork } from './network.ts';

let db: TestDatabase;
let net: DemoNetwork;

before(
  async () => {
    db = await createTestDatabase('demo_exits');
    for (let attempt = 1; ; attempt++) {
      const base = 21_000 + Math.floor(Math.random() * 5000);
      try {
        net = await startDemoNetwork({
          db,
          host: '127.0.0.1',
          publicHost: 'localhost',
          nodeId: 'gw-exits',
          socksBasePort: base,
          tunnelPort: 0,
          authPortMin: base - 4000,
          authPortMax: base - 3900,
          agentCount: 2,
          probeIntervalMs: 0,
          sharedLeases: false,
        });
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 5) throw e;
      }
    }
  },
  { timeout: 60_000 },
);

after(
  async () => {
    await net?.close();
    await db?.drop();
  },
  { timeout: 30_000 },
);

/** Asks for a purchase probe the way the market API does and waits (bounded) for the answer. */
async function probe(
  agentId: string,
): Promise<{ ok: boolean; observed: { ip: string; loc: { city: string } } }> {
  const [row] = await db.query<{ id: string }>(
    `WITH r AS (INSERT INTO probe_requests (agent_id, node_id) VALUES ($1, 'gw-exits') RETURNING id)
     SELECT r.id::text AS id, pg_notify('probe_requested', 'gw-exits') FROM r`,
    [agentId],
  );
  return waitFor(
    async () =>
      (
        await db.query<{ ok: boolean; observed: never }>(
          'SELECT ok, observed FROM probe_requests WHERE id = $1 AND done_at IS NOT NULL',
          [row!.id],
        )
      )[0],
    { timeoutMs: 5000, intervalMs: 50, what: 'the probe result' },
  );
}

test("a probe sees the identity's exit; after moveExit it sees the new one and the agent row follows", async () => {
  const [first, second] = demoIdentities(2);
  const before = await probe(first!.id);
  assert.equal(before.ok, true);
  assert.equal(before.observed.ip, first!.ip);

  net.moveExit(first!.id, { ip: '203.0.113.250', loc: { ...second!.loc, city: 'Elsewhere' } });
  const after = await probe(first!.id);
  assert.equal(after.ok, true);
  assert.equal(after.observed.ip, '203.0.113.250');
  assert.equal(after.observed.loc.city, 'Elsewhere');
  const [row] = await db.query<{ ip: string; city: string }>('SELECT ip, city FROM agents WHERE id = $1', [
    first!.id,
  ]);
  assert.deepEqual(row, { ip: '203.0.113.250', city: 'Elsewhere' });
});
