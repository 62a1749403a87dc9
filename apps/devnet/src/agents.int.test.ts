import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RADIUS_SEARCH_COUNTRIES, SHOP_CHIP_COUNTRIES } from '@pm/contracts';
import { buildLease, createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { type ControlPlane, type GatewayHandle, startControlPlane, startGateway } from '@pm/gateway';
import { curl } from '@pm/gateway/session/harness.testkit';
import { boundingBox, haversineMiles, type LatLon, lookupPostal } from '@pm/geo';
import { waitFor } from '@pm/testkit';
import {
  DEMO_AGENT_COUNT,
  type DemoAgents,
  type DemoIdentity,
  demoGeo,
  demoIdentities,
  type ProbeTarget,
  startDemoAgents,
  startProbeTarget,
} from './agents.ts';
import { DEMO_OTHER_CUSTOMER_EMAILS, seedDemoSharedLeases } from './demo-leases.ts';

let db: TestDatabase;
let plane: ControlPlane;
let gateway: GatewayHandle;
let demo: DemoAgents;
let target: ProbeTarget;
const all = demoIdentities();
// Four from the start of the list and the first two that other customers share, in id order.
const identities = [...all.slice(0, 4), ...all.filter((d) => d.sharers > 0).slice(0, 2)];

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
    // The devnet's tunnels: plaintext, on loopback only.
    plaintextTunnel: true,
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

test('the identities are unique, deterministic and in the documentation ranges', () => {
  assert.equal(all.length, DEMO_AGENT_COUNT);
  assert.equal(new Set(all.map((d) => d.ip)).size, all.length);
  assert.equal(new Set(all.map((d) => d.id)).size, all.length);
  for (const range of ['192.0.2.', '198.51.100.', '203.0.113.']) {
    assert.ok(
      all.some((d) => d.ip.startsWith(range)),
      range,
    );
  }
  assert.deepEqual(demoIdentities(), all, 'deterministic');
  assert.deepEqual(demoIdentities(6), all.slice(0, 6), 'a smaller count is a prefix');
  const more = demoIdentities(150);
  assert.equal(new Set(more.map((d) => d.ip)).size, 150);
  assert.ok(more.slice(all.length).every((d) => d.sharers === 0));
  for (const d of all) {
    assert.ok(d.stars >= 1 && d.stars <= 10);
    assert.ok(Number.isFinite(d.loc.lat) && Number.isFinite(d.loc.lon), d.id);
    assert.match(d.loc.host, /^[a-z0-9.-]+$/);
  }
});

const count = <T>(items: T[], key: (x: T) => string) => new Set(items.map(key)).size;

test('every shop chip and most of the radius countries have agents; the US has every filter value', () => {
  const byCc = (cc: string) => all.filter((d) => d.loc.cc === cc);
  for (const cc of SHOP_CHIP_COUNTRIES) {
    const here = byCc(cc);
    assert.ok(here.length >= 3, cc);
    assert.ok(count(here, (d) => d.loc.city) >= 2, `${cc} cities`);
    assert.deepEqual(new Set(here.map((d) => d.conn)), new Set(['wifi', 'cell']), `${cc} connections`);
  }
  assert.ok(RADIUS_SEARCH_COUNTRIES.filter((cc) => byCc(cc).length > 0).length >= 14);
  const us = byCc('US');
  assert.ok(us.length >= 20);
  assert.ok(count(us, (d) => d.loc.reg) >= 3);
  assert.ok(count(us, (d) => d.loc.city) >= 8);
  assert.ok(count(us, (d) => d.loc.zip) >= 8);
  assert.ok(count(us, (d) => d.loc.isp) >= 6);
  assert.deepEqual(new Set(us.map((d) => d.stars)), new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
  for (const conn of ['wifi', 'cell'] as const) {
    assert.ok(
      us.some((d) => d.conn === conn && d.dev === 'android'),
      conn,
    );
  }
  assert.ok(us.some((d) => d.dev === 'other'));
  assert.ok(count(all, (d) => d.loc.isp) >= 20);
});

test('agents sit on the postal centres the radius search uses', async () => {
  for (const d of all.filter((x) => (RADIUS_SEARCH_COUNTRIES as readonly string[]).includes(x.loc.cc))) {
    assert.deepEqual(await lookupPostal(d.loc.cc, d.loc.zip), { lat: d.loc.lat, lon: d.loc.lon }, d.id);
  }
});

const within = (agents: DemoIdentity[], center: LatLon, miles: number) => {
  const box = boundingBox(center, miles);
  return agents.filter(
    ({ loc }) =>
      loc.lat >= box.minLat &&
      loc.lat <= box.maxLat &&
      loc.lon >= box.minLon &&
      loc.lon <= box.maxLon &&
      haversineMiles(center, loc) <= miles,
  );
};

test('a radius search around a US ZIP finds agents in several cities and states', async () => {
  const nyc = (await lookupPostal('US', '10001'))!;
  const near = within(all, nyc, 50);
  assert.ok(near.length >= 8, `${near.length} within 50 mi of 10001`);
  assert.ok(count(near, (d) => d.loc.reg) >= 3);
  assert.ok(near.every((d) => d.loc.cc === 'US'));
  assert.ok(within(all, nyc, 10).length >= 4);
  assert.ok(within(all, nyc, 10).length < near.length, 'a wider radius finds more');
  assert.equal(
    within(all, (await lookupPostal('US', '90012'))!, 100).length,
    2,
    'the two Los Angeles agents',
  );
});

test('some agents are shared by other customers from the start, none of the first ones', () => {
  const shared = all.filter((d) => d.sharers > 0);
  assert.ok(shared.length >= 5);
  assert.deepEqual(new Set(shared.map((d) => d.sharers)), new Set([1, 2]));
  assert.ok(shared.some((d) => d.loc.cc === 'US' && d.sharers === 2));
  assert.ok(
    all.slice(0, 8).every((d) => d.sharers === 0),
    'small test networks stay unshared',
  );
  assert.ok(Math.max(...shared.map((d) => d.sharers)) <= DEMO_OTHER_CUSTOMER_EMAILS.length);
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

test('agent rows carry their coordinates; a bounding box and the exact distance find the ones near 10001', async () => {
  const nyc = (await lookupPostal('US', '10001'))!;
  const box = boundingBox(nyc, 10);
  const rows = await db.query<{ id: string; lat: number; lon: number }>(
    'SELECT id, lat, lon FROM agents WHERE lat BETWEEN $1 AND $2 AND lon BETWEEN $3 AND $4 ORDER BY id',
    [box.minLat, box.maxLat, box.minLon, box.maxLon],
  );
  const found = rows.filter((r) => haversineMiles(nyc, r) <= 10).map((r) => r.id);
  assert.deepEqual(
    found,
    within(identities, nyc, 10).map((d) => d.id),
  );
  assert.ok(found.length >= 2);
});

test('other customers hold the shared leases of the marked agents, once, and the gateway serves them', async () => {
  const created = await seedDemoSharedLeases(db, identities);
  assert.equal(
    created,
    identities.reduce((n, d) => n + d.sharers, 0),
  );
  const rows = await db.query<{
    agent_id: string;
    email: string;
    exc: boolean;
    socks_user: string;
    socks_pwd: string;
  }>(
    `SELECT l.agent_id, a.email, l.exc, l.socks_user, l.socks_pwd FROM leases l
       JOIN accounts a ON a.user_id = l.user_id
      WHERE l.ended_at IS NULL AND l.until > now() ORDER BY l.agent_id, a.email`,
  );
  for (const d of identities.filter((x) => x.sharers > 0)) {
    const held = rows.filter((r) => r.agent_id === d.id);
    assert.deepEqual(
      held.map((r) => [r.email, r.exc]),
      DEMO_OTHER_CUSTOMER_EMAILS.slice(0, d.sharers).map((e) => [e, false]),
      d.id,
    );
  }
  // Sold like a purchase sells: a shared agent is not New (nor priced New); the others still are.
  const sold = await db.query<{ id: string; last_sold_at: Date | null }>(
    'SELECT id, last_sold_at FROM agents WHERE id = ANY($1) ORDER BY id',
    [identities.map((d) => d.id)],
  );
  for (const row of sold) {
    const d = identities.find((x) => x.id === row.id)!;
    if (d.sharers === 0) assert.equal(row.last_sold_at, null, d.id);
    else assert.ok(row.last_sold_at && Date.now() - row.last_sold_at.getTime() < 24 * 3_600_000, d.id);
  }
  assert.equal(await seedDemoSharedLeases(db, identities), 0, 'a restart adds none while they last');
  await waitFor(() => rows.every((r) => plane.directory.findByCredentials(r.socks_user, r.socks_pwd)), {
    timeoutMs: 2000,
    what: 'the gateway serves every demo lease',
  });
});

test('a privately leased agent gets no shared demo lease', async () => {
  const agent = identities[1]!;
  await buildLease(db, agent.id, { nodeId: 'devnet', exc: true });
  assert.equal(await seedDemoSharedLeases(db, [{ ...agent, sharers: 2 }]), 0);
});

test('a lease on a demo agent relays real traffic to the probe target', async () => {
  const lease = await buildLease(db, identities[0]!.id, { nodeId: 'devnet' });
  await waitFor(() => plane.directory.findByCredentials(lease.socksUser, lease.socksPwd), {
    timeoutMs: 2000,
    what: 'the gateway serves the lease',
  });
  const proxy = `${lease.socksUser}:${lease.socksPwd}@127.0.0.1:${gateway.socksPorts[0]}`;
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
