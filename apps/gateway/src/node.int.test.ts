/**
 * One gateway node as main.ts composes it, on a real database, with a real agent over TLS: SOCKS
 * ports from the contract's offsets, the agent located, presence probes, and the market API's
 * purchase probes answered through the agent.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import { after, before, test } from 'node:test';
import { type AgentHandle, startAgent } from '@pm/agent';
import { SOCKS_PORT_OFFSETS } from '@pm/contracts';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import { createOverrideGeo } from './geo/geo.ts';
import { type GatewayNode, startGatewayNode } from './node.ts';
import { insertAgent } from './store/network.testkit.ts';
import { makeSelfSignedCert } from './tunnel/self-signed.ts';

let db: TestDatabase;
let target: http.Server;
let node: GatewayNode;
let agent: AgentHandle;
let agentId: string;
let base: number;
/** The exit each agent's traffic leaves from, as the echo service sees it (keyed by X-Probe-Agent). */
const exits = new Map<string, string>();
const geo = createOverrideGeo({
  '192.0.2.41': { cc: 'US', reg: 'TX', city: 'Austin', zip: '73301', isp: 'Example Cable', mob: false },
  '198.51.100.7': { cc: 'FR', reg: 'ARA', city: 'Lyon', zip: '69001', isp: 'Exemple Mobile', mob: true },
});

before(
  async () => {
    db = await createTestDatabase('gateway_node');
    // The outside world: an IP echo, a probe page and bytes for speed tests.
    target = http.createServer((req, res) => {
      if (req.url === '/ip')
        return res.end(`${exits.get(String(req.headers['x-probe-agent'])) ?? '0.0.0.0'}\n`);
      if (req.url === '/bytes') return res.end(Buffer.alloc(200_000, 97));
      res.end('ok');
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const web = `http://127.0.0.1:${(target.address() as net.AddressInfo).port}`;
    const tls = makeSelfSignedCert();
    // Fixed offsets from a base: drawn below the ephemeral range, retried on a clash.
    for (let attempt = 1; ; attempt++) {
      base = 21_000 + Math.floor(Math.random() * 5000);
      try {
        node = await startGatewayNode({
          db,
          nodeId: 'gw-node',
          node: { publicHost: 'gw-node.test', publicIp: '127.0.0.1', socksBasePort: base },
          host: '127.0.0.1',
          tunnelPort: 0,
          tls,
          trustAgentIp: true,
          geo,
          reverseDns: false,
          presence: { probeUrl: `${web}/probe`, speedUrl: `${web}/bytes`, probeIntervalMs: 0 },
          probeRequests: { echoUrl: `${web}/ip`, timeoutMs: 2000 },
        });
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 5) throw e;
      }
    }
    const row = await insertAgent(db, null);
    agentId = row.id;
    exits.set(agentId, '192.0.2.41');
    agent = startAgent({
      gateway: { host: '127.0.0.1', port: node.gateway.tunnelPort },
      key: row.key,
      tls: { ca: tls.cert },
      ipOverride: '192.0.2.41',
      allowLoopback: true,
      restrictTo: ['127.0.0.0/8'],
    });
    await agent.waitConnected(5000);
    await node.plane.registry.idle();
  },
  { timeout: 60_000 },
);

after(
  async () => {
    await agent?.close();
    await node?.close();
    await new Promise<void>((r) => (target ? target.close(() => r()) : r()));
    await db?.drop();
  },
  { timeout: 30_000 },
);

test("the SOCKS ports are the node's base plus the contract's offsets", () => {
  assert.deepEqual(
    node.gateway.socksPorts,
    SOCKS_PORT_OFFSETS.map((offset) => base + offset),
  );
});

test("the agent is located by the node's geo lookup and online on this node", async () => {
  const [row] = await db.query<{ node_id: string; online: boolean; cc: string; city: string }>(
    'SELECT node_id, online, cc, city FROM agents WHERE id = $1',
    [agentId],
  );
  assert.deepEqual(row, { node_id: 'gw-node', online: true, cc: 'US', city: 'Austin' });
});

test('presence probes and speed tests go through the agent and are recorded', async () => {
  const probes = await node.presence.probeAll();
  assert.equal(probes.get(agentId)?.ok, true);
  const speed = await node.presence.runSpeedTest(agentId);
  assert.equal(speed.ok, true);
  await node.presence.refreshActivity();
  const [row] = await db.query<{ probe_actv: number; speed_status: string }>(
    'SELECT probe_actv, speed_status FROM agents WHERE id = $1',
    [agentId],
  );
  assert.equal(Number(row!.probe_actv), 1);
  assert.equal(row!.speed_status, 'ok');
});

test('a purchase probe the market API asks for is answered through the agent, the exit located', async () => {
  const done = new Set<string>();
  const unlisten = await db.listen('probe_done', (id) => done.add(id));
  try {
    exits.set(agentId, '198.51.100.7');
    const [req] = await db.query<{ id: string }>(
      `WITH r AS (INSERT INTO probe_requests (agent_id, node_id) VALUES ($1, 'gw-node') RETURNING id)
       SELECT r.id::text AS id, pg_notify('probe_requested', 'gw-node') FROM r`,
      [agentId],
    );
    await waitFor(() => done.has(req!.id), { timeoutMs: 5000 });
    const [r] = await db.query<{ ok: boolean; observed: { ip: string; loc: { city: string } } }>(
      'SELECT ok, observed FROM probe_requests WHERE id = $1',
      [req!.id],
    );
    assert.equal(r!.ok, true);
    assert.equal(r!.observed.ip, '198.51.100.7');
    assert.equal(r!.observed.loc.city, 'Lyon');
  } finally {
    await unlisten();
  }
});

test('a speed check the market API asks for is run through the agent and its result written', async () => {
  const insert = (agent: string) =>
    db.query<{ id: string }>(
      `WITH r AS (INSERT INTO speed_checks (agent_id, node_id, user_id) VALUES ($1, 'gw-node', 'u1') RETURNING id)
       SELECT r.id::text AS id, pg_notify('speedcheck_requested', 'gw-node') FROM r`,
      [agent],
    );
  const statusOf = async (id: string) =>
    (
      await db.query<{ status: string; bps: string | null }>(
        'SELECT status, bps FROM speed_checks WHERE id = $1',
        [id],
      )
    )[0]!;
  const reaches = async (id: string, status: string) => {
    await waitFor(async () => (await statusOf(id)).status === status, {
      timeoutMs: 10_000,
      what: `speed check ${status}`,
    });
  };
  const [req] = await insert(agentId);
  await reaches(req!.id, 'done');
  assert.ok(Number((await statusOf(req!.id)).bps) > 0);

  // An agent that is not connected here fails rather than waiting.
  await db.query(`INSERT INTO agents (id, key_hash, node_id) VALUES ('ag-away', 'hash-away', 'gw-node')`);
  const [away] = await insert('ag-away');
  await reaches(away!.id, 'failed');
});
