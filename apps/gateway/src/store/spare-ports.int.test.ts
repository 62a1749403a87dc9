/**
 * Spare package ports on nodes as main.ts composes them, on a real database and real sockets: a
 * node records only ports it has bound (both doors refusing), skips and counts a port another
 * process holds, serves a sold spare on the very socket and binds another, marks a sold port it
 * cannot listen on, and two nodes of one machine with different ranges keep to their own.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type AgentHandle, startAgent } from '@pm/agent';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import { createOverrideGeo } from '../geo/geo.ts';
import { type GatewayNode, startGatewayNode } from '../node.ts';
import { curl, type HttpTarget, startHttpTarget } from '../session/harness.testkit.ts';
import { makeSelfSignedCert } from '../tunnel/self-signed.ts';
import { insertAgent } from './network.testkit.ts';
import { findFreeRange, type HeldPort, holdPortElsewhere } from './port-range.testkit.ts';

let db: TestDatabase;
let target: HttpTarget;
let held: HeldPort;
const nodes = new Map<string, GatewayNode>();
const agents: AgentHandle[] = [];
const tls = makeSelfSignedCert();
const geo = createOverrideGeo({
  '192.0.2.71': {
    cc: 'US',
    reg: 'New York',
    city: 'New York',
    zip: '10001',
    isp: 'Example Cable',
    mob: false,
  },
});
/** Node A: ports a..a+9, twins +300; node B: b..b+9, twins +400. Four spares each. */
const SPARES = 4;
let a: number;
let b: number;

async function startNode(id: string, min: number, offset: number): Promise<GatewayNode> {
  const node = await startGatewayNode({
    db,
    nodeId: id,
    node: {
      publicHost: `${id}.test`,
      publicIp: '127.0.0.1',
      socksBasePort: 0,
      packagePortMin: min,
      packagePortMax: min + 9,
      packageHttpOffset: offset,
    },
    packageSparePorts: SPARES,
    host: '127.0.0.1',
    tunnelPort: 0,
    tls,
    trustAgentIp: true,
    geo,
    reverseDns: false,
    metricsPort: 0,
    presence: { probeUrl: 'http://127.0.0.1:9/', speedUrl: 'http://127.0.0.1:9/', probeIntervalMs: 0 },
    probeRequests: { echoUrl: 'http://127.0.0.1:9/' },
  });
  nodes.set(id, node);
  return node;
}

/** The node's package_ports rows: spares (no package) and sold ones. */
async function rowsOf(nodeId: string) {
  return db.query<{
    port: number;
    package_id: string | null;
    bound_at: Date | null;
    bind_error: string | null;
  }>('SELECT port, package_id, bound_at, bind_error FROM package_ports WHERE node_id = $1 ORDER BY port', [
    nodeId,
  ]);
}
const sparesOf = async (nodeId: string) =>
  (await rowsOf(nodeId)).filter((r) => r.package_id === null).map((r) => r.port);

/** Sells as the server does: a package row, then the node's lowest spare (or `port`) taken into it. */
async function sell(
  nodeId: string,
  port?: number,
): Promise<{ id: string; login: string; pwd: string; port: number }> {
  const id = `pp-${randomBytes(6).toString('hex')}`;
  const login = `u${randomBytes(5).toString('hex')}`;
  const pwd = randomBytes(8).toString('hex');
  await db.query(
    `INSERT INTO port_packages (id, user_id, price_c, period_days, traffic_type, traffic_gb, country, state, city,
       connection_type, switch_type, switch_timer, api_key, access_type, auth_login, auth_password, node_id,
       port_amount, status, date_start, date_finish)
     VALUES ($1, 'user-1', 390, 1, 'limit', 1, 'US', '', '', 'both', 'timer', 5, $2, 'auth', $3, $4, $5, 1,
       'active', now(), now() + interval '1 day')`,
    [id, randomBytes(8).toString('hex'), login, pwd, nodeId],
  );
  const [row] =
    port === undefined
      ? await db.query<{ port: number }>(
          `UPDATE package_ports SET package_id = $1 WHERE node_id = $2 AND port =
             (SELECT min(port) FROM package_ports WHERE node_id = $2 AND package_id IS NULL AND bound_at IS NOT NULL)
           RETURNING port`,
          [id, nodeId],
        )
      : await db.query<{ port: number }>(
          'INSERT INTO package_ports (package_id, node_id, port) VALUES ($1, $2, $3) RETURNING port',
          [id, nodeId, port],
        );
  return { id, login, pwd, port: row!.port };
}

/** What a connection to `port` gets: 'refused' (reset or closed before any byte) or 'open' (it answers). */
function knock(port: number): Promise<'refused' | 'open'> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(Buffer.from([5, 1, 0])));
    s.setTimeout(2000, () => s.destroy());
    s.once('data', () => {
      s.destroy();
      resolve('open');
    });
    s.once('error', () => resolve('refused'));
    s.once('close', () => resolve('refused'));
  });
}

async function scrape(node: GatewayNode): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${node.gateway.metricsPort}/metrics`);
  return res.text();
}
const metricValue = (text: string, name: string, kind?: string) => {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && (!kind || l.includes(`kind="${kind}"`)));
  return line ? Number(line.split(' ').at(-1)) : 0;
};

before(
  async () => {
    db = await createTestDatabase('spare_ports');
    target = await startHttpTarget();
    a = await findFreeRange(10, 300);
    do b = await findFreeRange(10, 400);
    while (Math.abs(a - b) < 500);
    // Another process holds node A's lowest port before the node starts.
    held = await holdPortElsewhere(a);
    const nodeA = await startNode('sp-a', a, 300);
    await startNode('sp-b', b, 400);
    const row = await insertAgent(db, null);
    const agent = startAgent({
      gateway: { host: '127.0.0.1', port: nodeA.gateway.tunnelPort },
      key: row.key,
      tls: { ca: tls.cert },
      allowLoopback: true,
      ipOverride: '192.0.2.71',
      conn: 'wifi',
      dev: 'android',
    });
    agents.push(agent);
    await agent.waitConnected(5000);
    await nodeA.plane.registry.idle();
    await nodeA.plane.packages.reload();
  },
  { timeout: 60_000 },
);

after(
  async () => {
    for (const agent of agents) await agent.close();
    for (const node of nodes.values()) await node.close();
    await held?.close();
    await target?.close();
    await db?.drop();
  },
  { timeout: 30_000 },
);

describe('spare package ports', () => {
  test('a node records only ports it bound, both doors refusing; a port another process holds is skipped and counted', async () => {
    const spares = await sparesOf('sp-a');
    assert.deepEqual(spares, [a + 1, a + 2, a + 3, a + 4], 'the lowest free ports, the held one left out');
    for (const r of await rowsOf('sp-a')) assert.ok(r.bound_at, `port ${r.port} confirmed`);
    for (const port of spares) {
      assert.equal(await knock(port), 'refused', `spare ${port} refuses`);
      assert.equal(await knock(port + 300), 'refused', `its twin ${port + 300} refuses`);
    }
    const text = await scrape(nodes.get('sp-a')!);
    assert.equal(metricValue(text, 'gateway_port_bind_failures_total', 'spare'), 1, text);
    assert.equal(metricValue(text, 'gateway_package_spare_ports'), SPARES);
  });

  test('a sold spare is served on its socket and its twin, and the pool binds another', async () => {
    const node = nodes.get('sp-a')!;
    const pkg = await sell('sp-a');
    assert.equal(pkg.port, a + 1);
    const url = `http://127.0.0.1:${target.port}/bytes/100`;
    const socks = () => curl(['--socks5-hostname', `${pkg.login}:${pkg.pwd}@127.0.0.1:${pkg.port}`, url], 3);
    assert.ok(
      await waitFor(() => node.gateway.authPorts().includes(pkg.port), { timeoutMs: 3000 }),
      'the data path took it',
    );
    assert.equal((await socks()).code, 0, 'SOCKS5 through the sold port');
    const http = await curl(['-x', `http://${pkg.login}:${pkg.pwd}@127.0.0.1:${pkg.port + 300}`, url], 3);
    assert.equal(http.code, 0, `HTTP through its twin: ${http.stderr}`);
    assert.equal(http.stdout.length, 100);
    const refilled = async () => (await sparesOf('sp-a')).length === SPARES;
    await waitFor(refilled, { timeoutMs: 5000, what: 'the spares refilled' });
    assert.deepEqual(await sparesOf('sp-a'), [a + 2, a + 3, a + 4, a + 5], 'one more spare bound');
  });

  test('a sold port the node cannot listen on gets bind_error and is counted', async () => {
    const node = nodes.get('sp-a')!;
    // As after a restart: the package holds a port another process took meanwhile.
    const pkg = await sell('sp-a', a);
    await node.plane.packages.reload();
    const row = await waitFor(async () => (await rowsOf('sp-a')).find((r) => r.port === a && r.bind_error), {
      timeoutMs: 3000,
      what: 'bind_error written',
    });
    assert.match(row.bind_error ?? '', /EADDRINUSE/, 'bind_error written');
    assert.equal(row && (await rowsOf('sp-a')).find((r) => r.port === a)?.package_id, pkg.id);
    const text = await scrape(node);
    assert.equal(metricValue(text, 'gateway_port_bind_failures_total', 'package'), 1, text);
  });

  test('two nodes of one machine with different ranges each hold, record and serve only their own ports', async () => {
    const nodeA = nodes.get('sp-a')!;
    const nodeB = nodes.get('sp-b')!;
    const inRange = (port: number, min: number) => port >= min && port <= min + 9;
    assert.ok((await sparesOf('sp-b')).every((p) => inRange(p, b)));
    assert.equal((await sparesOf('sp-b')).length, SPARES);
    assert.ok(nodeB.spares!.held().every((p) => inRange(p, b)));
    assert.ok(nodeA.spares!.held().every((p) => inRange(p, a)));
    assert.ok(!nodeB.gateway.authPorts().some((p) => inRange(p, a)), 'B never listens in A range');
    assert.ok(!nodeA.gateway.authPorts().some((p) => inRange(p, b)), 'A never listens in B range');
  });

  test('a node going down withdraws its spares; started again it binds and records them anew', async () => {
    await nodes.get('sp-b')!.close();
    nodes.delete('sp-b');
    assert.deepEqual(await sparesOf('sp-b'), [], 'nothing left to sell on a stopped node');
    const again = await startNode('sp-b', b, 400);
    assert.equal((await sparesOf('sp-b')).length, SPARES);
    for (const port of again.spares!.held()) assert.equal(await knock(port + 400), 'refused');
  });
});
