import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { type GatewayHandle, startGateway } from '@pm/gateway/gateway';
import { curl } from '@pm/gateway/session/harness.testkit';
import { type ControlPlane, startControlPlane } from '@pm/gateway/store/control-plane';
import { insertLease } from '@pm/gateway/store/network.testkit';
import {
  type DemoAgents,
  demoGeo,
  demoIdentities,
  type ProbeTarget,
  startDemoAgents,
  startProbeTarget,
} from './agents.ts';

let db: TestDatabase;
let plane: ControlPlane;
let gateway: GatewayHandle;
let demo: DemoAgents;
let target: ProbeTarget;
const identities = demoIdentities(6);

before(async () => {
  db = await createTestDatabase('devnet_agents');
  target = await startProbeTarget({ speedBytes: 100_000 });
  plane = await startControlPlane({
    db,
    nodeId: 'devnet',
    node: { publicHost: 'localhost', publicIp: '127.0.0.1', socksBasePort: 10000 },
    geo: demoGeo(identities),
    reverseDns: false,
  });
  gateway = await startGateway({
    nodeId: 'devnet',
    host: '127.0.0.1',
    tunnelPort: 0,
    socksPorts: [0, 0, 0, 0],
    directory: plane.directory,
    meter: plane.meter,
    registry: plane.registry,
    handshakeTimeoutMs: 5000,
    trustAgentIp: true,
  });
  demo = await startDemoAgents({ db, gateway: { host: '127.0.0.1', port: gateway.tunnelPort }, identities });
  await demo.waitConnected(10_000);
  await plane.registry.idle();
});
after(async () => {
  await demo?.close();
  await gateway?.close();
  await plane?.close();
  await target?.close();
  await db?.drop();
});

test('the identities spread over ranges, countries, connection types and devices', () => {
  const all = demoIdentities(36);
  assert.equal(new Set(all.map((d) => d.ip)).size, 36);
  assert.equal(new Set(all.map((d) => d.id)).size, 36);
  for (const range of ['192.0.2.', '198.51.100.', '203.0.113.']) {
    assert.ok(
      all.some((d) => d.ip.startsWith(range)),
      range,
    );
  }
  assert.ok(new Set(all.map((d) => d.loc.cc)).size >= 8);
  assert.ok(all.filter((d) => d.loc.cc === 'US').length >= 12);
  assert.ok(new Set(all.map((d) => d.loc.isp)).size >= 10);
  assert.deepEqual(new Set(all.map((d) => d.conn)), new Set(['wifi', 'cell']));
  assert.deepEqual(new Set(all.map((d) => d.dev)), new Set(['android', 'other']));
  for (const d of all) {
    assert.ok(d.stars >= 1 && d.stars <= 10);
    assert.ok(Number.isInteger(d.priceExcC) && d.priceShrC > 0 && d.priceShrC < d.priceExcC);
  }
  assert.deepEqual(demoIdentities(36), all, 'deterministic');
});

test('demo agents are online on the gateway with their synthetic identities', async () => {
  assert.equal(gateway.agentsOnline().length, 6);
  const rows = await db.query<{
    id: string;
    ip: string;
    city: string;
    host: string;
    online: boolean;
    node_id: string;
  }>('SELECT id, ip, city, host, online, node_id FROM agents ORDER BY id');
  assert.deepEqual(
    rows.map((r) => [r.id, r.ip, r.city, r.host, r.online, r.node_id]),
    identities.map((d) => [d.id, d.ip, d.loc.city, d.loc.host, true, 'devnet']),
  );
});

test('a lease on a demo agent relays real traffic to the probe target', async () => {
  const lease = await insertLease(db, identities[0]!.id, 'devnet');
  const deadline = Date.now() + 2000;
  while (!plane.directory.findByCredentials(lease.user, lease.pwd) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
  }
  const proxy = `${lease.user}:${lease.pwd}@127.0.0.1:${gateway.socksPorts[0]}`;
  const probe = await curl(['--socks5-hostname', proxy, target.probeUrl], 5);
  assert.equal(probe.code, 0, probe.stderr);
  assert.equal(probe.stdout.toString(), 'ok');
  const bytes = await curl(['--socks5-hostname', proxy, target.speedUrl], 5);
  assert.equal(bytes.code, 0, bytes.stderr);
  assert.equal(bytes.stdout.length, 100_000);
});

test('restarting the demo rotates keys without duplicating rows', async () => {
  const before = await db.query<{ key_hash: string }>('SELECT key_hash FROM agents ORDER BY id');
  const again = await startDemoAgents({
    db,
    gateway: { host: '127.0.0.1', port: gateway.tunnelPort },
    identities,
  });
  try {
    await again.waitConnected(10_000);
    const afterRows = await db.query<{ key_hash: string }>('SELECT key_hash FROM agents ORDER BY id');
    assert.equal(afterRows.length, before.length);
    assert.notEqual(afterRows[0]?.key_hash, before[0]?.key_hash);
  } finally {
    await again.close();
  }
});
