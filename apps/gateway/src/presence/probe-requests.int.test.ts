import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import { createOverrideGeo, type Loc } from '../geo/geo.ts';
import type { AgentDialer } from '../policy/types.ts';
import { insertAgent, insertNode } from '../store/network.testkit.ts';
import { type ProbeRequestWorker, startProbeRequestWorker } from './probe-requests.ts';

let db: TestDatabase;
let echo: http.Server;
let worker: ProbeRequestWorker;
let unlisten: (() => Promise<void>) | undefined;
/** The exit each agent's traffic leaves from, as the echo service sees it. */
const exits = new Map<string, string>();
const broken = new Set<string>();
const done = new Map<string, number>();

const AUSTIN: Loc = { cc: 'US', reg: 'TX', city: 'Austin', zip: '73301', isp: 'Example Cable', mob: false };
const LYON: Loc = { cc: 'FR', reg: 'ARA', city: 'Lyon', zip: '69001', isp: 'Exemple Mobile', mob: true };
const geo = createOverrideGeo({
  '192.0.2.41': { ...AUSTIN, host: 'a41.cable.example' },
  '198.51.100.7': { ...LYON, host: 'lyon7.mobile.example' },
});

// The relay itself is tested with the data path; here the "agent" connects directly.
const dialer: AgentDialer = {
  dial(agentId, host, port) {
    return new Promise<Duplex>((resolve, reject) => {
      if (broken.has(agentId)) return reject(new Error('agent offline'));
      const s = net.connect(port, host, () => resolve(s));
      s.once('error', reject);
    });
  },
};

before(async () => {
  db = await createTestDatabase('probe_requests');
  await insertNode(db, 'p1');
  await insertNode(db, 'p2');
  echo = http.createServer((req, res) => {
    const agent = String(req.headers['x-probe-agent'] ?? '');
    res.end(`${exits.get(agent) ?? req.socket.remoteAddress}\n`);
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  const { port } = echo.address() as net.AddressInfo;
  unlisten = await db.listen('probe_done', (id) => done.set(id, Date.now()));
  worker = startProbeRequestWorker({
    db,
    nodeId: 'p1',
    dialer,
    echoUrl: `http://127.0.0.1:${port}/ip`,
    geo,
    reverseDns: false,
    timeoutMs: 2000,
    pruneMs: 200,
  });
  await worker.ready;
});

after(async () => {
  await worker?.close();
  await unlisten?.();
  await new Promise<void>((r) => (echo ? echo.close(() => r()) : r()));
  await db?.drop();
});

/** Asks for a probe the way the market API does. */
async function request(agentId: string, nodeId: string, ageS = 0): Promise<string> {
  const [row] = await db.query<{ id: string }>(
    `WITH r AS (INSERT INTO probe_requests (agent_id, node_id, requested_at)
                VALUES ($1, $2, now() - make_interval(secs => $3)) RETURNING id)
     SELECT r.id::text AS id, pg_notify('probe_requested', $2) FROM r`,
    [agentId, nodeId, ageS],
  );
  return row!.id;
}

async function result(id: string) {
  const [row] = await db.query<{
    ok: boolean | null;
    error: string | null;
    observed: unknown;
    done_at: Date | null;
  }>('SELECT ok, error, observed, done_at FROM probe_requests WHERE id = $1', [id]);
  return row!;
}

test('a request for this node is answered with the exit the echo saw, located; the agent row follows it', async () => {
  const agent = await insertAgent(db, 'p1');
  await db.query(
    `UPDATE agents SET ip = '192.0.2.41', cc = 'US', city = 'Austin', host = 'a41.cable.example' WHERE id = $1`,
    [agent.id],
  );
  exits.set(agent.id, '192.0.2.41');
  const first = await request(agent.id, 'p1');
  await waitFor(() => done.has(first), { timeoutMs: 5000 });
  assert.deepEqual((await result(first)).observed, {
    ip: '192.0.2.41',
    host: 'a41.cable.example',
    loc: { cc: 'US', reg: 'TX', city: 'Austin', zip: '73301', isp: 'Example Cable', mob: false },
  });

  // The carrier moves the exit: the next probe sees it and the agent row is updated.
  exits.set(agent.id, '198.51.100.7');
  const second = await request(agent.id, 'p1');
  await waitFor(() => done.has(second), { timeoutMs: 5000 });
  const r = await result(second);
  assert.equal(r.ok, true);
  assert.deepEqual(r.observed, {
    ip: '198.51.100.7',
    host: 'lyon7.mobile.example',
    loc: { cc: 'FR', reg: 'ARA', city: 'Lyon', zip: '69001', isp: 'Exemple Mobile', mob: true },
  });
  const [row] = await db.query<Record<string, unknown>>(
    'SELECT ip, host, cc, reg, city, zip, isp, mob FROM agents WHERE id = $1',
    [agent.id],
  );
  assert.deepEqual(row, {
    ip: '198.51.100.7',
    host: 'lyon7.mobile.example',
    cc: 'FR',
    reg: 'ARA',
    city: 'Lyon',
    zip: '69001',
    isp: 'Exemple Mobile',
    mob: true,
  });
  const probes = await db.query('SELECT ok FROM agent_probes WHERE agent_id = $1', [agent.id]);
  assert.equal(probes.length, 2, 'purchase probes count as probes');
});

test('an agent that does not answer gives ok false with the reason, and no observation', async () => {
  const agent = await insertAgent(db, 'p1');
  broken.add(agent.id);
  const id = await request(agent.id, 'p1');
  await waitFor(() => done.has(id), { timeoutMs: 5000 });
  const r = await result(id);
  assert.equal(r.ok, false);
  assert.equal(r.error, 'agent offline');
  assert.equal(r.observed, null);
});

test("another node's requests and requests the API has given up on are left alone", async () => {
  const agent = await insertAgent(db, 'p2');
  const other = await request(agent.id, 'p2');
  const local = await insertAgent(db, 'p1');
  const stale = await request(local.id, 'p1', 60);
  // A fresh request after them is answered: by then the worker has looked at both.
  const fresh = await request(local.id, 'p1');
  await waitFor(() => done.has(fresh), { timeoutMs: 5000 });
  for (const id of [other, stale]) {
    const r = await result(id);
    assert.equal(r.done_at, null);
    assert.equal(done.has(id), false);
  }
});

test('rows the API abandoned are deleted after ten minutes; younger ones stay', async () => {
  const agent = await insertAgent(db, 'p1');
  const [old] = await db.query<{ id: string }>(
    `INSERT INTO probe_requests (agent_id, node_id, requested_at, claimed_at, done_at, ok)
     VALUES ($1, 'p1', now() - interval '11 minutes', now(), now(), true) RETURNING id::text AS id`,
    [agent.id],
  );
  const [young] = await db.query<{ id: string }>(
    `INSERT INTO probe_requests (agent_id, node_id, requested_at, claimed_at, done_at, ok)
     VALUES ($1, 'p1', now() - interval '9 minutes', now(), now(), true) RETURNING id::text AS id`,
    [agent.id],
  );
  const ids = async () =>
    (
      await db.query<{ id: string }>('SELECT id::text AS id FROM probe_requests WHERE id = ANY($1)', [
        [old!.id, young!.id],
      ])
    ).map((r) => r.id);
  await waitFor(async () => !(await ids()).includes(old!.id), {
    timeoutMs: 3000,
    what: 'the old row deleted',
  });
  assert.deepEqual(await ids(), [young!.id]);
});
