import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createDb, type DbHandle } from '@pm/db';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import { startCutProxy } from '../store/cut-proxy.testkit.ts';
import { insertAgent, insertLease, insertNode, insertPackage } from '../store/network.testkit.ts';
import { createPgLeaseMeter } from './lease-meter.ts';

let db: TestDatabase;
let agentId: string;

before(async () => {
  db = await createTestDatabase('lease_meter');
  await insertNode(db, 'n1');
  agentId = (await insertAgent(db, 'n1')).id;
});
after(async () => {
  await db.drop();
});

interface Stats {
  reqs: string;
  fails: string;
  in_bytes: string;
  out_bytes: string;
}
const statsOf = async (id: string) => {
  const [row] = await db.query<Stats>('SELECT reqs, fails, in_bytes, out_bytes FROM leases WHERE id = $1', [
    id,
  ]);
  assert.ok(row);
  return {
    reqs: Number(row.reqs),
    fails: Number(row.fails),
    up: Number(row.in_bytes),
    down: Number(row.out_bytes),
  };
};

test('counts exactly and writes many leases in one statement', async () => {
  const calls: string[] = [];
  const counting: DbHandle = {
    ...db,
    query: (text, params) => {
      calls.push(text);
      return db.query(text, params);
    },
  };
  const meter = createPgLeaseMeter({ db: counting, flushMs: 60_000 });
  const leases = [];
  for (let i = 0; i < 20; i++) leases.push(await insertLease(db, agentId, 'n1'));
  leases.forEach((l, i) => {
    for (let r = 0; r <= i; r++) meter.countRequest(l.id, r % 3 !== 0 ? 'ok' : 'target');
    meter.addBytes(l.id, 1000 + i, 7);
    meter.addBytes(l.id, 1, 2_000_000_000 + i);
  });
  meter.countFailureAfterSuccess(leases[5]!.id);
  await meter.flush();
  assert.equal(calls.length, 1);
  assert.equal(meter.pendingLeases(), 0);
  for (const [i, l] of leases.entries()) {
    const expectedFails = Math.ceil((i + 1) / 3) + (i === 5 ? 1 : 0);
    assert.deepEqual(await statsOf(l.id), {
      reqs: i + 1,
      fails: expectedFails,
      up: 1001 + i,
      down: 2_000_000_007 + i,
    });
  }
  // Counters add up across flushes; an empty flush writes nothing.
  meter.addBytes(leases[0]!.id, 5, 5);
  await meter.flush();
  await meter.flush();
  assert.equal(calls.length, 2);
  assert.equal((await statsOf(leases[0]!.id)).up, 1006);
  const [row] = await db.query<{ at: Date | null }>(
    'SELECT stats_flushed_at AS at FROM leases WHERE id = $1',
    [leases[0]!.id],
  );
  assert.ok(row?.at);
  await meter.close();
});

test('flushes by itself within the period', async () => {
  const lease = await insertLease(db, agentId, 'n1');
  const meter = createPgLeaseMeter({ db, flushMs: 300 });
  meter.countRequest(lease.id, 'ok');
  meter.addBytes(lease.id, 10, 20);
  const stats = await waitFor(
    async () => {
      const s = await statsOf(lease.id);
      return s.reqs > 0 && s;
    },
    { timeoutMs: 3000, what: 'the timed flush' },
  );
  assert.deepEqual(stats, { reqs: 1, fails: 0, up: 10, down: 20 });
  await meter.close();
});

test('keeps the deltas while PostgreSQL is unreachable and writes them after', async () => {
  const proxy = await startCutProxy(db.url);
  const viaProxy = await createDb({ databaseUrl: proxy.url, maxConnections: 2 });
  const errors: unknown[] = [];
  const meter = createPgLeaseMeter({ db: viaProxy, flushMs: 200, onError: (e) => errors.push(e) });
  try {
    const lease = await insertLease(db, agentId, 'n1');
    meter.countRequest(lease.id, 'ok');
    meter.addBytes(lease.id, 100, 200);
    await meter.flush();
    proxy.cut();
    for (let i = 0; i < 10; i++) {
      meter.countRequest(lease.id, i % 2 === 0 ? 'ok' : 'agent');
      meter.addBytes(lease.id, 1, 2);
      // The counts pile up across failing flushes: two, after the fifth and the tenth.
      if (i % 5 === 4) await waitFor(() => errors.length >= (i + 1) / 5, { timeoutMs: 5000 });
    }
    assert.deepEqual(await statsOf(lease.id), { reqs: 1, fails: 0, up: 100, down: 200 });
    proxy.restore();
    await waitFor(() => meter.pendingLeases() === 0, { timeoutMs: 8000 });
    assert.deepEqual(await statsOf(lease.id), { reqs: 11, fails: 5, up: 110, down: 220 });
  } finally {
    await meter.close();
    await viaProxy.close().catch(() => {});
    await proxy.close();
  }
});

test('the same flush adds the deltas to the lease hour row, which sums to the totals', async () => {
  const meter = createPgLeaseMeter({ db, flushMs: 60_000 });
  const lease = await insertLease(db, agentId, 'n1');
  meter.countRequest(lease.id, 'ok');
  meter.countRequest(lease.id, 'target');
  meter.addBytes(lease.id, 300, 4000);
  // A lease id the database does not hold (deleted meanwhile) writes no hour row and no error.
  meter.countRequest('zzzz-0000', 'ok');
  await meter.flush();
  meter.addBytes(lease.id, 1, 2);
  await meter.flush();
  const hours = await db.query<Stats & { hour: Date }>(
    'SELECT hour, reqs, fails, in_bytes, out_bytes FROM lease_traffic_hourly WHERE lease_id = $1',
    [lease.id],
  );
  assert.equal(hours.length, 1);
  const [h] = hours;
  assert.equal(new Date(h!.hour).getTime() % 3_600_000, 0);
  assert.deepEqual(
    { reqs: Number(h!.reqs), fails: Number(h!.fails), up: Number(h!.in_bytes), down: Number(h!.out_bytes) },
    await statsOf(lease.id),
  );
  assert.deepEqual(await statsOf(lease.id), { reqs: 2, fails: 1, up: 301, down: 4002 });
  const orphan = await db.query('SELECT 1 FROM lease_traffic_hourly WHERE lease_id = $1', ['zzzz-0000']);
  assert.equal(orphan.length, 0);
  await meter.close();
});

test('the hour row keeps the agent-caused failures apart: only the agent class and a tunnel dying under a relay', async () => {
  const meter = createPgLeaseMeter({ db, flushMs: 60_000 });
  const lease = await insertLease(db, agentId, 'n1');
  for (const result of ['ok', 'agent', 'target', 'policy', 'limit', 'agent', 'ok'] as const) {
    meter.countRequest(lease.id, result);
  }
  meter.countFailureAfterSuccess(lease.id);
  await meter.flush();
  const [h] = await db.query<{ reqs: string; fails: string; agent_fails: string }>(
    'SELECT reqs, fails, agent_fails FROM lease_traffic_hourly WHERE lease_id = $1',
    [lease.id],
  );
  assert.deepEqual(
    { reqs: Number(h!.reqs), fails: Number(h!.fails), agentFails: Number(h!.agent_fails) },
    {
      reqs: 7,
      fails: 6,
      agentFails: 3,
    },
  );
  // The customer's Failed % stays every failure.
  assert.equal((await statsOf(lease.id)).fails, 6);
  await meter.close();
});

const packageRow = async (id: string) => {
  const [r] = await db.query<Record<string, string | null>>(
    `SELECT status, suspend_reason, requests, errors, auth_fails, upload, download, stats_flushed_at
     FROM port_packages WHERE id = $1`,
    [id],
  );
  assert.ok(r);
  return r;
};

test("a package's counters add up whatever its status; only an active one is suspended at its volume", async () => {
  const meter = createPgLeaseMeter({ db, flushMs: 60_000 });
  const atVolume = await insertPackage(db, 'n1', { gb: 1 });
  await db.query('UPDATE port_packages SET download = $2 WHERE id = $1', [atVolume.id, 2 ** 30 - 100]);
  const expired = await insertPackage(db, 'n1', { gb: 1 });
  await db.query(`UPDATE port_packages SET status = 'suspend', suspend_reason = 'expired' WHERE id = $1`, [
    expired.id,
  ]);
  const refunded = await insertPackage(db, 'n1', { gb: 1 });
  await db.query(`UPDATE port_packages SET status = 'refunded' WHERE id = $1`, [refunded.id]);
  const unlimited = await insertPackage(db, 'n1', { gb: 1 });
  await db.query(`UPDATE port_packages SET traffic_type = 'unlimit', traffic_gb = 0 WHERE id = $1`, [
    unlimited.id,
  ]);
  for (const p of [atVolume, expired, refunded, unlimited]) {
    meter.countRequest(p.id, 'ok');
    meter.addBytes(p.id, 50, 60);
  }
  meter.addBytes(unlimited.id, 0, 5 * 2 ** 30);
  await meter.flush();
  const a = await packageRow(atVolume.id);
  assert.deepEqual([a.status, a.suspend_reason, Number(a.download)], ['suspend', 'volume', 2 ** 30 - 40]);
  for (const p of [expired, refunded]) {
    const r = await packageRow(p.id);
    assert.deepEqual(
      [Number(r.requests), Number(r.upload), Number(r.download)],
      [1, 50, 60],
      'still metered',
    );
    const [h] = await db.query<{ reqs: string; out_bytes: string }>(
      'SELECT reqs, out_bytes FROM package_traffic_hourly WHERE package_id = $1',
      [p.id],
    );
    assert.deepEqual([Number(h?.reqs), Number(h?.out_bytes)], [1, 60], 'and in its hour');
  }
  assert.deepEqual(
    [(await packageRow(expired.id)).status, (await packageRow(expired.id)).suspend_reason],
    ['suspend', 'expired'],
  );
  assert.equal((await packageRow(refunded.id)).status, 'refunded');
  assert.equal((await packageRow(unlimited.id)).status, 'active', 'an unlimited port has no volume');
  await meter.close();
});

test('refused credentials count in auth_fails only, on the lease, the package and their hours', async () => {
  const meter = createPgLeaseMeter({ db, flushMs: 60_000 });
  const lease = await insertLease(db, agentId, 'n1');
  const p = await insertPackage(db, 'n1');
  for (const id of [lease.id, p.id]) {
    meter.countRequest(id, 'ok');
    for (let i = 0; i < 3; i++) meter.countAuthFailure(id);
  }
  await meter.flush();
  const [l] = await db.query<Record<string, string>>(
    'SELECT reqs, fails, auth_fails FROM leases WHERE id = $1',
    [lease.id],
  );
  assert.deepEqual([Number(l?.reqs), Number(l?.fails), Number(l?.auth_fails)], [1, 0, 3]);
  const [lh] = await db.query<Record<string, string>>(
    'SELECT reqs, fails, agent_fails, auth_fails FROM lease_traffic_hourly WHERE lease_id = $1',
    [lease.id],
  );
  assert.deepEqual(
    [Number(lh?.reqs), Number(lh?.fails), Number(lh?.agent_fails), Number(lh?.auth_fails)],
    [1, 0, 0, 3],
  );
  const r = await packageRow(p.id);
  assert.deepEqual([Number(r.requests), Number(r.errors), Number(r.auth_fails)], [1, 0, 3]);
  const [ph] = await db.query<Record<string, string>>(
    'SELECT reqs, fails, auth_fails FROM package_traffic_hourly WHERE package_id = $1',
    [p.id],
  );
  assert.deepEqual([Number(ph?.reqs), Number(ph?.fails), Number(ph?.auth_fails)], [1, 0, 3]);
  await meter.close();
});

test('markForFlush stamps stats_flushed_at without new counters and writes no hour', async () => {
  const meter = createPgLeaseMeter({ db, flushMs: 60_000 });
  const p = await insertPackage(db, 'n1');
  assert.equal((await packageRow(p.id)).stats_flushed_at, null);
  const before = Date.now();
  meter.markForFlush(p.id);
  await meter.flush();
  const r = await packageRow(p.id);
  assert.ok(r.stats_flushed_at && new Date(r.stats_flushed_at).getTime() >= before - 1000);
  assert.deepEqual([Number(r.requests), Number(r.upload), Number(r.download)], [0, 0, 0]);
  const hours = await db.query('SELECT 1 FROM package_traffic_hourly WHERE package_id = $1', [p.id]);
  assert.equal(hours.length, 0);
  await meter.close();
});
