import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createDb } from '@pm/db';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import { createOverrideGeo } from '../geo/geo.ts';
import {
  createPgAgentRegistry,
  type PgAgentRegistry,
  type PgAgentRegistryOptions,
} from './agent-registry.ts';
import { startCutProxy } from './cut-proxy.testkit.ts';
import { insertAgent } from './network.testkit.ts';

let db: TestDatabase;
const registries: PgAgentRegistry[] = [];

const geo = createOverrideGeo({
  '192.0.2.10': {
    cc: 'US',
    reg: 'CA',
    city: 'San Jose',
    zip: '95131',
    isp: 'Example Wireless',
    mob: false,
    lat: 37.3,
    lon: -121.9,
  },
  '198.51.100.20': {
    cc: 'DE',
    reg: 'BE',
    city: 'Berlin',
    zip: '10115',
    isp: 'Kabel Net',
    mob: false,
    host: 'dsl-20.example.net',
  },
});

before(async () => {
  db = await createTestDatabase('agent_registry');
});
after(async () => {
  for (const r of registries) await r.close();
  await db.drop();
});

function registry(nodeId: string, extra: Partial<PgAgentRegistryOptions> = {}): PgAgentRegistry {
  const r = createPgAgentRegistry({
    db,
    nodeId,
    node: { publicHost: `${nodeId}.example.test`, publicIp: '127.0.0.1', socksBasePort: 10000 },
    geo,
    reverseDns: async (ip) => [`rev-${ip.replaceAll('.', '-')}.example.test`],
    heartbeatMs: 200,
    ...extra,
  });
  registries.push(r);
  return r;
}

interface AgentDbRow {
  node_id: string | null;
  ip: string;
  host: string;
  cc: string;
  city: string;
  isp: string;
  mob: boolean;
  conn: string;
  dev: string;
  online: boolean;
  first_seen: Date | null;
  last_seen: Date | null;
  lat: number | null;
}
const agentRow = async (id: string): Promise<AgentDbRow> => {
  const [row] = await db.query<AgentDbRow>('SELECT * FROM agents WHERE id = $1', [id]);
  assert.ok(row);
  return row;
};
const openPresence = async (id: string) =>
  (
    await db.query<{ node_id: string }>(
      'SELECT node_id FROM agent_presence WHERE agent_id = $1 AND ended_at IS NULL',
      [id],
    )
  ).map((r) => r.node_id);

test('authenticates keys by their hash only', async () => {
  const r = registry('r1');
  await r.ready;
  const agent = await insertAgent(db, null);
  assert.equal(await r.authenticate(agent.key), agent.id);
  assert.equal(await r.authenticate(`${agent.key}x`), undefined);
  assert.equal(await r.authenticate(''), undefined);
  const stored = await db.query<{ key_hash: string }>('SELECT key_hash FROM agents WHERE id = $1', [
    agent.id,
  ]);
  assert.notEqual(stored[0]?.key_hash, agent.key);
});

test('connected writes node, address, location, reverse DNS and presence; disconnected marks offline', async () => {
  const r = registry('r2');
  const agent = await insertAgent(db, null);
  r.connected(agent.id, { ip: '192.0.2.10', conn: 'cell', dev: 'android' });
  await r.idle();
  let row = await agentRow(agent.id);
  assert.equal(row.node_id, 'r2');
  assert.equal(row.ip, '192.0.2.10');
  assert.equal(row.cc, 'US');
  assert.equal(row.city, 'San Jose');
  assert.equal(row.isp, 'Example Wireless');
  assert.equal(row.mob, true);
  assert.equal(row.conn, 'cell');
  assert.equal(row.dev, 'android');
  assert.equal(row.lat, 37.3);
  assert.equal(row.online, true);
  assert.ok(row.first_seen);
  assert.deepEqual(await openPresence(agent.id), ['r2']);
  await waitFor(async () => (await agentRow(agent.id)).host === 'rev-192-0-2-10.example.test', {
    timeoutMs: 2000,
  });
  const firstSeen = row.first_seen;

  r.disconnected(agent.id);
  await r.idle();
  row = await agentRow(agent.id);
  assert.equal(row.online, false);
  assert.deepEqual(await openPresence(agent.id), []);

  // A known identity's host comes from the override; first seen stays.
  r.connected(agent.id, { ip: '198.51.100.20', conn: 'wifi', dev: 'other' });
  await r.idle();
  row = await agentRow(agent.id);
  assert.equal(row.host, 'dsl-20.example.net');
  assert.equal(row.cc, 'DE');
  assert.equal(row.mob, false);
  assert.deepEqual(row.first_seen, firstSeen);
});

test('a reconnect before the old tunnel closes stays online; moving nodes is not undone by the old node', async () => {
  const a = registry('r3');
  const b = registry('r4');
  const agent = await insertAgent(db, null);
  a.connected(agent.id, { ip: '192.0.2.10', conn: 'wifi', dev: 'other' });
  a.connected(agent.id, { ip: '192.0.2.10', conn: 'wifi', dev: 'other' });
  a.disconnected(agent.id);
  await a.idle();
  assert.equal((await agentRow(agent.id)).online, true);

  b.connected(agent.id, { ip: '192.0.2.10', conn: 'wifi', dev: 'other' });
  await b.idle();
  a.disconnected(agent.id);
  await a.idle();
  const row = await agentRow(agent.id);
  assert.equal(row.online, true);
  assert.equal(row.node_id, 'r4');
  assert.deepEqual(await openPresence(agent.id), ['r4']);
});

test('a restarted node closes the presence its dead predecessor left open', async () => {
  const first = registry('r5');
  const agent = await insertAgent(db, null);
  first.connected(agent.id, { ip: '192.0.2.10', conn: 'wifi', dev: 'other' });
  await first.idle();
  // Simulate a crash: no disconnect is written. A new process for the same node starts.
  const second = registry('r5');
  await second.ready;
  assert.equal((await agentRow(agent.id)).online, false);
  assert.deepEqual(await openPresence(agent.id), []);
});

test('heartbeat keeps last_seen fresh; writes made while PostgreSQL is down land afterwards', async () => {
  const proxy = await startCutProxy(db.url);
  const viaProxy = await createDb({ databaseUrl: proxy.url, maxConnections: 2 });
  try {
    const errors: unknown[] = [];
    const r = registry('r6', { db: viaProxy, retryMs: 100, onError: (e) => errors.push(e) });
    await r.ready;
    const agent = await insertAgent(db, null);
    proxy.cut();
    r.connected(agent.id, { ip: '192.0.2.10', conn: 'wifi', dev: 'other' });
    await waitFor(async () => errors.length >= 2, { timeoutMs: 5000 });
    assert.equal((await agentRow(agent.id)).online, false);
    proxy.restore();
    await waitFor(async () => (await agentRow(agent.id)).online, { timeoutMs: 5000 });
    const seen = (await agentRow(agent.id)).last_seen!.getTime();
    await waitFor(async () => (await agentRow(agent.id)).last_seen!.getTime() > seen, { timeoutMs: 3000 });
    await r.close();
  } finally {
    await viaProxy.close().catch(() => {});
    await proxy.close();
  }
});
