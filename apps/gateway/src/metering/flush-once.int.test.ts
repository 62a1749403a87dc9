/**
 * A flush whose answer is lost after PostgreSQL committed it (the connection cut after the commit,
 * or the meter's timeout firing first) is retried with the same id and counted once (issue 38
 * item 5: no metered byte lost or doubled; meter_flushes).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { DbHandle } from '@pm/db';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { insertAgent, insertLease, insertNode } from '../store/network.testkit.ts';
import { createPgLeaseMeter } from './lease-meter.ts';

let db: TestDatabase;
let agentId: string;

before(async () => {
  db = await createTestDatabase('flush_once');
  await insertNode(db, 'n1');
  agentId = (await insertAgent(db, 'n1')).id;
});
after(async () => {
  await db.drop();
});

const totalsOf = async (id: string) => {
  const [row] = await db.query<{ reqs: string; up: string; down: string; hour_down: string }>(
    `SELECT reqs, in_bytes AS up, out_bytes AS down,
            (SELECT coalesce(sum(out_bytes), 0) FROM lease_traffic_hourly WHERE lease_id = $1) AS hour_down
       FROM leases WHERE id = $1`,
    [id],
  );
  return {
    reqs: Number(row!.reqs),
    up: Number(row!.up),
    down: Number(row!.down),
    hourDown: Number(row!.hour_down),
  };
};

/** The database as the meter sees it: the first `lose` flushes commit, then their answer is lost. */
function losingAnswers(lose: number, how: 'error' | 'late'): DbHandle & { sent: unknown[][] } {
  const sent: unknown[][] = [];
  let lost = 0;
  return {
    ...db,
    sent,
    async query(text, params) {
      sent.push(params ?? []);
      const rows = await db.query(text, params);
      if (lost >= lose) return rows as never;
      lost++;
      if (how === 'error') throw new Error('Connection terminated unexpectedly');
      // Answered after the meter's timeout gave up on it (it committed all the same).
      await new Promise((r) => setTimeout(r, 300)); // sleeps: the answer arrives after the meter's 100 ms timeout
      return rows as never;
    },
  };
}

for (const how of ['error', 'late'] as const) {
  test(`a flush that committed but whose answer was ${how === 'error' ? 'lost' : 'too late'} counts once`, async () => {
    const lease = await insertLease(db, agentId, 'n1');
    const conn = losingAnswers(2, how);
    const errors: unknown[] = [];
    const meter = createPgLeaseMeter({
      db: conn,
      flushMs: 60_000,
      queryTimeoutMs: 100,
      onError: (e) => errors.push(e),
    });
    try {
      meter.countRequest(lease.id, 'ok');
      meter.addBytes(lease.id, 10, 1000);
      await assert.rejects(meter.flush());
      // New traffic meanwhile is kept apart from the unanswered batch, not merged into it.
      meter.addBytes(lease.id, 1, 1);
      await assert.rejects(meter.flush());
      assert.equal(meter.pendingLeases(), 1);
      await meter.flush();
      assert.equal(meter.pendingLeases(), 0);
      assert.deepEqual(await totalsOf(lease.id), { reqs: 1, up: 11, down: 1001, hourDown: 1001 });
      // The retries carried the first flush's id; the later counters a fresh one.
      const ids = conn.sent.map((p) => p[7]);
      assert.equal(ids[0], ids[1]);
      assert.equal(ids[1], ids[2]);
      assert.notEqual(ids[3], ids[0]);
    } finally {
      await meter.close();
    }
  });
}

test('a flush that never reached the database is written once when it comes back', async () => {
  const lease = await insertLease(db, agentId, 'n1');
  let down = true;
  const conn: DbHandle = {
    ...db,
    query: (text, params) =>
      down ? Promise.reject(new Error('connect ECONNREFUSED')) : db.query(text, params),
  };
  const meter = createPgLeaseMeter({ db: conn, flushMs: 60_000 });
  try {
    meter.addBytes(lease.id, 5, 50);
    await assert.rejects(meter.flush());
    meter.addBytes(lease.id, 5, 50);
    await assert.rejects(meter.flush());
    down = false;
    await meter.flush();
    assert.deepEqual(await totalsOf(lease.id), { reqs: 0, up: 10, down: 100, hourDown: 100 });
  } finally {
    await meter.close();
  }
});
