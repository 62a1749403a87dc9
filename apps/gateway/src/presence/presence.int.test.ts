import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import type { AgentDialer } from '../policy/types.ts';
import { insertAgent, insertNode } from '../store/network.testkit.ts';
import { createPresenceMonitor, type PresenceMonitor, type PresenceMonitorOptions } from './presence.ts';

let db: TestDatabase;
let target: http.Server;
let base: string;
let monitor: PresenceMonitor;
const online = new Set<string>();
/** Agents whose "device" cannot reach anything (the dial fails like an unreachable target). */
const broken = new Set<string>();

// Stands in for the gateway's tunnel: the probe logic is ours, the relay is tested with the data path.
const directDialer: AgentDialer = {
  dial(agentId, host, port) {
    return new Promise<Duplex>((resolve, reject) => {
      if (broken.has(agentId)) return reject(new Error('host unreachable'));
      const s = net.connect(port, host, () => resolve(s));
      s.once('error', reject);
    });
  },
};

/** A monitor of node p1 probing the test target, no periodic rounds or refreshes unless asked. */
const startMonitor = (o: Partial<PresenceMonitorOptions> = {}) =>
  createPresenceMonitor({
    db,
    nodeId: 'p1',
    dialer: directDialer,
    agentsOnline: () => [...online],
    probeUrl: `${base}/probe`,
    speedUrl: `${base}/bytes`,
    probeIntervalMs: 0,
    probeTimeoutMs: 2000,
    activityIntervalMs: 3_600_000,
    ...o,
  });

before(async () => {
  db = await createTestDatabase('presence');
  await insertNode(db, 'p1');
  target = http.createServer((req, res) => {
    if (req.url === '/probe') return res.end('ok');
    if (req.url === '/fail') {
      res.statusCode = 500;
      return res.end();
    }
    if (req.url?.startsWith('/bytes')) {
      const n = 2_000_000;
      res.writeHead(200, { 'content-length': n });
      return res.end(Buffer.alloc(n, 7));
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(target.address() as net.AddressInfo).port}`;
  monitor = startMonitor();
});
after(async () => {
  await monitor.close();
  target.close();
  await db.drop();
});

const agentRow = async (id: string) => {
  const [row] = await db.query<{
    actv: number;
    probe_actv: number;
    speed_bps: string | null;
    speed_status: string | null;
    speed_checked_at: Date | null;
  }>('SELECT actv, probe_actv, speed_bps, speed_status, speed_checked_at FROM agents WHERE id = $1', [id]);
  assert.ok(row);
  return row;
};

test('activity is the online share of the last 24 hours', async () => {
  const old = await insertAgent(db, 'p1');
  const fresh = await insertAgent(db, 'p1');
  const never = await insertAgent(db, 'p1');
  await db.query(`UPDATE agents SET first_seen = now() - interval '10 days' WHERE id = $1`, [old.id]);
  await db.query(`UPDATE agents SET first_seen = now() - interval '2 hours' WHERE id = $1`, [fresh.id]);
  // old: 3 h inside the window, 2 h straddling its start (1 h counts), 2 h open now; 30 h ago is outside.
  await db.query(
    `INSERT INTO agent_presence (agent_id, node_id, started_at, ended_at) VALUES
      ($1, 'p1', now() - interval '30 hours', now() - interval '28 hours'),
      ($1, 'p1', now() - interval '25 hours', now() - interval '23 hours'),
      ($1, 'p1', now() - interval '10 hours', now() - interval '7 hours'),
      ($1, 'p1', now() - interval '2 hours', NULL),
      ($2, 'p1', now() - interval '2 hours', now() - interval '1 hour')`,
    [old.id, fresh.id],
  );
  await monitor.refreshActivity();
  assert.ok(Math.abs((await agentRow(old.id)).actv - 6 / 24) < 0.001);
  // A new agent: the share of the time since it was first seen.
  assert.ok(Math.abs((await agentRow(fresh.id)).actv - 0.5) < 0.001);
  assert.equal((await agentRow(never.id)).actv, 0);
});

test('probe activity is the share of successful probes', async () => {
  const good = await insertAgent(db, 'p1');
  const bad = await insertAgent(db, 'p1');
  online.add(good.id);
  online.add(bad.id);
  try {
    const first = await monitor.probeAll();
    assert.equal(first.get(good.id)?.ok, true);
    broken.add(good.id);
    const second = await monitor.probeAll();
    assert.equal(second.get(good.id)?.ok, false);
    broken.delete(good.id);
    await monitor.probeAll();
    broken.add(bad.id);
    broken.add(good.id);
    await monitor.probeAll();
    await monitor.refreshActivity();
    assert.ok(Math.abs((await agentRow(good.id)).probe_actv - 2 / 4) < 0.001);
    assert.ok(Math.abs((await agentRow(bad.id)).probe_actv - 3 / 4) < 0.001);
    const [count] = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM agent_probes WHERE agent_id = $1',
      [bad.id],
    );
    assert.equal(count?.n, 4);
  } finally {
    online.clear();
    broken.clear();
  }
});

test('a probe fails on an error status and when the target is unreachable', async () => {
  const failing = startMonitor({ probeUrl: `${base}/fail`, speedUrl: 'http://127.0.0.1:1/none' });
  const agent = await insertAgent(db, 'p1');
  online.add(agent.id);
  try {
    const result = (await failing.probeAll()).get(agent.id);
    assert.equal(result?.ok, false);
    assert.match(result?.error ?? '', /500/);
    const speed = await failing.runSpeedTest(agent.id);
    assert.equal(speed.ok, false);
    assert.equal(speed.bps, 0);
    assert.equal((await agentRow(agent.id)).speed_status, 'failed');
  } finally {
    online.clear();
    await failing.close();
  }
});

test('speed test downloads through the agent and stores bits per second', async () => {
  const agent = await insertAgent(db, 'p1');
  const offline = await insertAgent(db, 'p1');
  online.add(agent.id);
  try {
    const [a, b] = await Promise.all([monitor.runSpeedTest(agent.id), monitor.runSpeedTest(agent.id)]);
    assert.equal(a, b, 'a second request joins the running test');
    assert.equal(a.ok, true);
    assert.equal(a.bytes, 2_000_000);
    assert.ok(a.bps > 1_000_000, `loopback download at ${a.bps} bps`);
    const row = await agentRow(agent.id);
    assert.equal(Number(row.speed_bps), a.bps);
    assert.equal(row.speed_status, 'ok');
    assert.ok(row.speed_checked_at);
    const off = await monitor.runSpeedTest(offline.id);
    assert.equal(off.ok, false);
    assert.equal((await agentRow(offline.id)).speed_status, 'failed');
  } finally {
    online.clear();
  }
});

test('a probe round that outlasts the period is not joined by a second one', async () => {
  let dials = 0;
  let release = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  // Every dial hangs until released: the first round outlasts many periods.
  const slow: AgentDialer = {
    async dial() {
      dials++;
      await held;
      throw new Error('host unreachable');
    },
  };
  const m = startMonitor({
    dialer: slow,
    agentsOnline: () => ['slow-1', 'slow-2'],
    probeIntervalMs: 20,
    probeTimeoutMs: 60_000,
  });
  try {
    await waitFor(() => dials >= 2, {
      timeoutMs: 10_000,
      intervalMs: 10,
      what: 'the first round dials both agents',
    });
    assert.equal(dials, 2, 'the first round dials both agents');
    // Ten periods more: a second round would dial them again.
    await new Promise((r) => setTimeout(r, 200)); // sleeps: no second round may start; absence needs a window
    assert.equal(dials, 2);
  } finally {
    release();
    await m.close();
  }
});

test('a round is paced at probeRatePerS: the i-th probe starts i / rate seconds in, not in a burst', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await insertAgent(db, 'p1')).id);
  const dialedAt: number[] = [];
  const timed: AgentDialer = {
    dial(agentId, host, port) {
      dialedAt.push(performance.now());
      return directDialer.dial(agentId, host, port);
    },
  };
  const m = startMonitor({ dialer: timed, agentsOnline: () => ids, probeRatePerS: 20 });
  try {
    const t0 = performance.now();
    const results = await m.probeAll();
    assert.deepEqual(
      ids.map((id) => results.get(id)?.ok),
      ids.map(() => true),
    );
    // 50 ms apart at 20 a second (a timer may round its delay down by a millisecond).
    assert.equal(dialedAt.length, ids.length);
    for (const [i, at] of dialedAt.entries()) {
      assert.ok(at - t0 >= i * 50 - 2, `probe ${i} started at ${at - t0} ms`);
    }
  } finally {
    await m.close();
  }
});
