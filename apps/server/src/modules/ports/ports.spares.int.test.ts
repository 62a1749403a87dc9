/**
 * Ports that exist (issue 34, item 5), through the Ports API with real gateway nodes of one machine
 * on one database: a package gets only ports its node bound and confirmed (never one another
 * process holds), each node serves only its own range (SOCKS5 and the HTTP twin at its own offset),
 * and a sold port the node cannot listen on after a restart moves to a spare, or, with none left,
 * the package is refunded in full once.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type AgentHandle, startAgent } from '@pm/agent';
import { ENDPOINTS, type EndpointRequest, type TPortPackage, ZPortPackage } from '@pm/contracts';
import { buildAccount, buildAgent, newUserId } from '@pm/db/testing';
import { type GatewayNode, startGatewayNode } from '@pm/gateway';
import { createOverrideGeo } from '@pm/gateway/geo/geo';
import { curl, type HttpTarget, startHttpTarget } from '@pm/gateway/session/harness.testkit';
import { hashAgentKey } from '@pm/gateway/store/agent-registry';
import { findFreeRange, type HeldPort, holdPortElsewhere } from '@pm/gateway/store/port-range.testkit';
import { waitFor } from '@pm/testkit';
import { createServices } from '../../index.ts';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { callRoute } from '../../test/route.ts';

let t: TestApp;
let target: HttpTarget;
const held: HeldPort[] = [];
const agents: AgentHandle[] = [];
const nodes = new Map<string, GatewayNode>();

/** Three nodes of this machine, each its own range, twin offset and exits. */
const PLACES = {
  east: { ip: '192.0.2.81', cc: 'US', reg: 'New York', city: 'New York', size: 20, offset: 500, spares: 6 },
  west: {
    ip: '192.0.2.82',
    cc: 'US',
    reg: 'California',
    city: 'Los Angeles',
    size: 20,
    offset: 700,
    spares: 6,
  },
  // One port only: once it is sold the node has no spare left.
  tiny: { ip: '192.0.2.83', cc: 'DE', reg: 'Berlin', city: 'Berlin', size: 1, offset: 900, spares: 1 },
} as const;
type Place = keyof typeof PLACES;
const geo = createOverrideGeo(
  Object.fromEntries(
    Object.values(PLACES).map((p) => [
      p.ip,
      { cc: p.cc, reg: p.reg, city: p.city, zip: '', isp: 'Example', mob: false },
    ]),
  ),
);
const min = {} as Record<Place, number>;
const tunnelPorts = {} as Record<Place, number>;

async function startNode(place: Place): Promise<GatewayNode> {
  const p = PLACES[place];
  const node = await startGatewayNode({
    db: t.db,
    nodeId: `gw-${place}`,
    node: {
      publicHost: `${place}.gw.test`,
      publicIp: '127.0.0.1',
      socksBasePort: 0,
      packagePortMin: min[place],
      packagePortMax: min[place] + p.size - 1,
      packageHttpOffset: p.offset,
    },
    packageSparePorts: p.spares,
    host: '127.0.0.1',
    // The same tunnel port after a restart, so the agent finds its node again.
    tunnelPort: tunnelPorts[place] ?? 0,
    plaintextTunnel: true,
    trustAgentIp: true,
    geo,
    reverseDns: false,
    presence: { probeUrl: 'http://127.0.0.1:9/', speedUrl: 'http://127.0.0.1:9/', probeIntervalMs: 0 },
    probeRequests: { echoUrl: 'http://127.0.0.1:9/' },
  });
  tunnelPorts[place] = node.gateway.tunnelPort;
  nodes.set(place, node);
  return node;
}

/** Stops the node and starts it again with the same settings (its sold ports bound anew). */
async function restart(place: Place, whileDown?: () => Promise<void>): Promise<GatewayNode> {
  await nodes.get(place)!.close();
  await whileDown?.();
  const node = await startNode(place);
  await agentsOnline(place);
  return node;
}

async function agentsOnline(place: Place): Promise<void> {
  const node = nodes.get(place)!;
  await waitFor(() => node.gateway.agentsOnline().length > 0, {
    timeoutMs: 5000,
    what: `${place}'s agent online`,
  });
  await node.plane.registry.idle();
}

async function connectAgent(place: Place): Promise<void> {
  const key = randomBytes(24).toString('base64url');
  await buildAgent(t.db, { keyHash: hashAgentKey(key), nodeId: null, online: false, ip: '' });
  const agent = startAgent({
    gateway: { host: '127.0.0.1', port: tunnelPorts[place] },
    key,
    plaintext: true,
    ipOverride: PLACES[place].ip,
    allowLoopback: true,
    backoffMinMs: 50,
    backoffMaxMs: 200,
  });
  agents.push(agent);
  await agent.waitConnected(5000);
  await agentsOnline(place);
}

/** Buys the one unlimited port of `place` through the Ports API with login access. */
async function buy(place: Place) {
  const userId = newUserId('spares');
  await buildAccount(t.db, { userId, balanceC: 10_000 });
  const headers = await t.auth(userId);
  const p = PLACES[place];
  const offer: EndpointRequest<typeof ENDPOINTS.quotePortPrice>['body'] = {
    time_period: 1,
    traffic: { type: 'unlimit' },
    geo: { country: p.cc, state: p.reg, city: p.city, connection_type: 'both' },
    access: { type: 'auth' },
  };
  const { price } = (await callRoute(t, ENDPOINTS.quotePortPrice, { headers, body: offer })).ok();
  const res = await callRoute(t, ENDPOINTS.createPortPackage, {
    headers,
    body: { ...offer, user_id: userId, price, switch: { type: 'timer', timer: 5 } },
  });
  assert.equal(res.statusCode, 200, res.body);
  return { userId, headers, price: Number(price), pkg: ZPortPackage.parse(res.json()) };
}

async function packageOf(headers: Record<string, string>, userId: string): Promise<TPortPackage> {
  const res = await callRoute(t, ENDPOINTS.listPortPackages, { params: { id: userId }, headers });
  return ZPortPackage.parse(res.json().packages[0]);
}

/** Fetches the target through the port by SOCKS5, or by its HTTP twin; true when the page came back. */
async function served(pkg: TPortPackage, port: number, door: 'socks' | 'http'): Promise<boolean> {
  const creds = `${pkg.access.auth_login}:${pkg.access.auth_password}`;
  const url = `http://127.0.0.1:${target.port}/bytes/64`;
  const args =
    door === 'socks'
      ? ['--socks5-hostname', `${creds}@127.0.0.1:${port}`, url]
      : ['-x', `http://${creds}@127.0.0.1:${port + pkg.access.http_port_offset}`, url];
  return waitFor(
    async () => {
      const r = await curl(args, 2);
      return r.code === 0 && r.stdout.length === 64;
    },
    { timeoutMs: 10_000, intervalMs: 100, what: `${door} through port ${port}` },
  );
}

const balanceOf = async (userId: string) =>
  Number(
    (await t.db.query<{ b: string }>('SELECT balance_c AS b FROM accounts WHERE user_id = $1', [userId]))[0]
      ?.b,
  );

before(
  async () => {
    t = await createTestApp('ports_spares', { ports: true, payments: false });
    target = await startHttpTarget();
    for (const place of Object.keys(PLACES) as Place[]) {
      const p = PLACES[place];
      // Ranges and twins of the three nodes apart from each other.
      do min[place] = await findFreeRange(p.size, p.offset);
      while (Object.entries(min).some(([o, m]) => o !== place && Math.abs(m - min[place]) < 1000));
    }
    // Another process holds east's lowest port before east starts.
    held.push(await holdPortElsewhere(min.east));
    for (const place of Object.keys(PLACES) as Place[]) {
      await startNode(place);
      await connectAgent(place);
    }
  },
  { timeout: 60_000 },
);

after(
  async () => {
    for (const a of agents) await a.close();
    for (const n of nodes.values()) await n.close();
    for (const h of held) await h.close();
    await target?.close();
    await t?.close();
  },
  { timeout: 30_000 },
);

describe('ports that exist', () => {
  test('each package gets a confirmed spare of its node, never a port another process holds, served on both doors of that node only', async () => {
    const east = await buy('east');
    const west = await buy('west');
    const [ep] = east.pkg.access.ports;
    const [wp] = west.pkg.access.ports;
    assert.equal(ep, min.east + 1, 'the lowest port east bound: the one another process holds is skipped');
    assert.equal(wp, min.west, "west's lowest port");
    assert.equal(east.pkg.access.port_service_host, 'east.gw.test');
    assert.equal(east.pkg.access.http_port_offset, 500, "east's twin offset");
    assert.equal(west.pkg.access.http_port_offset, 700, "west's twin offset");
    for (const door of ['socks', 'http'] as const) {
      assert.ok(await served(east.pkg, ep!, door), `east serves ${door}`);
      assert.ok(await served(west.pkg, wp!, door), `west serves ${door}`);
    }
    const listened = (place: Place) => nodes.get(place)!.gateway.authPorts();
    assert.ok(listened('east').includes(ep!) && !listened('west').includes(ep!), 'east port on east only');
    assert.ok(listened('west').includes(wp!) && !listened('east').includes(wp!), 'west port on west only');
    const rows = await t.db.query<{ node_id: string; port: number }>(
      'SELECT node_id, port FROM package_ports WHERE port = $1',
      [min.east],
    );
    assert.deepEqual(rows, [], 'the held port was never recorded, so never sold');
  });

  test('a sold port its node cannot listen on after a restart moves to a spare of the same node', async () => {
    const { userId, headers, pkg } = await buy('east');
    const [before] = pkg.access.ports;
    const balance = await balanceOf(userId);
    await restart('east', async () => {
      held.push(await holdPortElsewhere(before!));
    });
    const error = await waitFor(
      async () =>
        (
          await t.db.query<{ bind_error: string | null }>(
            'SELECT bind_error FROM package_ports WHERE node_id = $1 AND port = $2',
            ['gw-east', before],
          )
        )[0]?.bind_error,
      { timeoutMs: 3000, what: 'the node reported it' },
    );
    assert.match(error, /EADDRINUSE/, 'the node reported it');
    const report = await createServices(t.db).portRebind.rebindUnboundPorts();
    assert.deepEqual(report, { moved: [pkg.id], refunded: [] });
    const moved = await packageOf(headers, userId);
    const [after] = moved.access.ports;
    assert.notEqual(after, before, 'the port number changed');
    assert.ok(after! >= min.east && after! < min.east + PLACES.east.size, 'a port of the same node');
    assert.equal(moved.status.type, 'active');
    assert.ok(await served(moved, after!, 'socks'), 'served on the new port');
    assert.ok(await served(moved, after!, 'http'), 'and its twin');
    assert.equal(await balanceOf(userId), balance, 'no money moved');
    const again = await createServices(t.db).portRebind.rebindUnboundPorts();
    assert.deepEqual(again, { moved: [], refunded: [] }, 'settled once');
  });

  test('with no spare left the package ends with a full refund, once, and the customer refund pays nothing more', async () => {
    const { userId, headers, pkg, price } = await buy('tiny');
    const [port] = pkg.access.ports;
    assert.equal(port, min.tiny, 'the only port of the node');
    const paid = await balanceOf(userId);
    await restart('tiny', async () => {
      held.push(await holdPortElsewhere(port!));
    });
    const report = await waitFor(
      async () => {
        const r = await createServices(t.db).portRebind.rebindUnboundPorts();
        return r.refunded.length > 0 && r;
      },
      { timeoutMs: 3000, what: 'the unbound port refunded' },
    );
    assert.deepEqual(report, { moved: [], refunded: [pkg.id] });
    assert.equal(await balanceOf(userId), paid + price, 'the whole price back');
    const ended = await packageOf(headers, userId);
    assert.equal(ended.status.type, 'refunded');
    assert.deepEqual(ended.access.ports, [], 'its port is no longer its');
    const refund = await callRoute(t, ENDPOINTS.refundPortPackage, { params: { id: pkg.id }, headers });
    assert.equal(refund.statusCode, 409, 'the customer refund finds it refunded');
    const rows = await t.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM txrecords WHERE idem_key = $1',
      [`port-refund:${pkg.id}:1`],
    );
    assert.equal(rows[0]?.n, 1, 'one refund record under the refund key');
    assert.equal(await balanceOf(userId), paid + price);
  });
});
