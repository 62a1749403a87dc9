/**
 * Package ports on the real data path: two gateway nodes on one database, real agents with
 * synthetic locations, packages written as the server writes them. Rotation, geo and connection
 * routing, sticky exits, login and whitelist access, and suspension at the volume.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type AgentHandle, startAgent } from '@pm/agent';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import type { GatewayHandle } from '../gateway.ts';
import { createOverrideGeo } from '../geo/geo.ts';
import { curl, type HttpTarget, startHttpTarget } from '../session/harness.testkit.ts';
import { makeSelfSignedCert } from '../tunnel/self-signed.ts';
import type { ControlPlane } from './control-plane.ts';
import { HTTP_OFFSET, insertAgent, insertLease, insertPackage, type TestPackage } from './network.testkit.ts';
import { startTestNode } from './node.testkit.ts';

interface Node {
  id: string;
  plane: ControlPlane;
  gateway: GatewayHandle;
}

let db: TestDatabase;
let target: HttpTarget;
const nodes: Node[] = [];
const agents = new Map<string, AgentHandle>();
const tls = makeSelfSignedCert();
const NY = { cc: 'US', reg: 'New York', city: 'New York', zip: '10001', isp: 'Example Cable', mob: false };
const geo = createOverrideGeo({
  '192.0.2.51': NY,
  '192.0.2.52': NY,
  '192.0.2.53': NY,
  '203.0.113.61': {
    cc: 'US',
    reg: 'California',
    city: 'Los Angeles',
    zip: '90001',
    isp: 'Example Mobile',
    mob: true,
  },
});

async function startNode(id: string): Promise<Node> {
  const { plane, gateway } = await startTestNode(db, id, {
    geo,
    tls,
    served: true,
    gateway: { httpPorts: [0], httpPortOffset: HTTP_OFFSET },
  });
  return { id, plane, gateway };
}

async function connectAgent(node: Node, ip: string, conn: 'wifi' | 'cell'): Promise<string> {
  const a = await insertAgent(db, null);
  const agent = startAgent({
    gateway: { host: '127.0.0.1', port: node.gateway.tunnelPort },
    key: a.key,
    tls: { ca: tls.cert },
    allowLoopback: true,
    ipOverride: ip,
    conn,
    dev: 'android',
    backoffMinMs: 50,
    backoffMaxMs: 500,
  });
  agents.set(a.id, agent);
  await agent.waitConnected(5000);
  await node.plane.registry.idle();
  return a.id;
}

const fetchVia = (proxy: string, bytes = 1000, extra: string[] = []) =>
  curl([...extra, '--socks5-hostname', proxy, `http://127.0.0.1:${target.port}/bytes/${bytes}`], 5);
const viaLogin = (p: TestPackage, port = p.ports[0]!, pwd = p.password, bytes = 1000) =>
  fetchVia(`${p.login}:${pwd}@127.0.0.1:${port}`, bytes);

let n1: Node;
let n2: Node;
const nyExits: string[] = [];
let laExit: string;

before(async () => {
  db = await createTestDatabase('package_ports');
  target = await startHttpTarget();
  n1 = await startNode('n1');
  n2 = await startNode('n2');
  nodes.push(n1, n2);
  for (const ip of ['192.0.2.51', '192.0.2.52', '192.0.2.53'])
    nyExits.push(await connectAgent(n1, ip, 'wifi'));
  laExit = await connectAgent(n2, '203.0.113.61', 'cell');
  await n1.plane.packages.reload();
  await n2.plane.packages.reload();
});

after(async () => {
  for (const a of agents.values()) await a.close();
  for (const n of nodes) {
    await n.gateway.close();
    await n.plane.close();
  }
  await target?.close();
  await db?.drop();
});

describe('package ports on two gateway nodes', () => {
  test('a login port answers on its own node only, through a matching exit, sticky between connections', async () => {
    const p = await insertPackage(db, 'n1');
    await waitFor(() => n1.gateway.authPorts().includes(p.ports[0]!), {
      timeoutMs: 2000,
      what: 'node 1 listens',
    });
    assert.equal(n2.gateway.authPorts().includes(p.ports[0]!), false, 'node 2 does not');
    const r = await viaLogin(p);
    assert.equal(r.code, 0, r.stderr);
    const exit = n1.plane.packages.stickyExit(p.ports[0]!);
    assert.ok(exit && nyExits.includes(exit), `exit ${exit}`);
    for (let i = 0; i < 3; i++) assert.equal((await viaLogin(p)).code, 0);
    assert.equal(n1.plane.packages.stickyExit(p.ports[0]!), exit, 'sticky');
    const written = async () =>
      (
        await db.query<{ agent_id: string }>('SELECT agent_id FROM package_ports WHERE port = $1', [
          p.ports[0],
        ])
      )[0]?.agent_id;
    await waitFor(async () => (await written()) === exit, {
      timeoutMs: 1000,
      what: "the exit is written back for the customer's table",
    });
    assert.notEqual((await viaLogin(p, p.ports[0], 'wrong')).code, 0, 'wrong password');
    const noAuth = await fetchVia(`127.0.0.1:${p.ports[0]}`);
    assert.notEqual(noAuth.code, 0, 'a login port takes no anonymous connection');
  });

  test("geo and connection: a California mobile package exits through node 2's cell agent; none matching refuses", async () => {
    const la = await insertPackage(db, 'n2', { state: 'California', conn: 'mobile' });
    await waitFor(() => n2.gateway.authPorts().includes(la.ports[0]!), { timeoutMs: 2000 });
    assert.equal((await viaLogin(la)).code, 0);
    assert.equal(n2.plane.packages.stickyExit(la.ports[0]!), laExit);
    const wifiLa = await insertPackage(db, 'n2', { state: 'California', conn: 'wifi' });
    await waitFor(() => n2.gateway.authPorts().includes(wifiLa.ports[0]!), { timeoutMs: 2000 });
    assert.notEqual((await viaLogin(wifiLa)).code, 0, 'no wifi exit in California');
  });

  test('rotation by the link moves the port to another exit; an offline exit is replaced at once', async () => {
    const p = await insertPackage(db, 'n1', { timer: null });
    await waitFor(() => n1.gateway.authPorts().includes(p.ports[0]!), { timeoutMs: 2000 });
    assert.equal((await viaLogin(p)).code, 0);
    const first = n1.plane.packages.stickyExit(p.ports[0]!)!;
    await db.query('UPDATE package_ports SET rotate_seq = rotate_seq + 1, agent_id = NULL WHERE port = $1', [
      p.ports[0],
    ]);
    let second: string | undefined;
    assert.ok(
      await waitFor(
        () => {
          void viaLogin(p);
          second = n1.plane.packages.stickyExit(p.ports[0]!);
          return second !== undefined && second !== first;
        },
        { timeoutMs: 3000 },
      ),
      'rotated within 3 s',
    );
    assert.ok(nyExits.includes(second!));
    // The exit goes offline: the next connection takes another agent, no rotation needed.
    await agents.get(second!)!.close();
    agents.delete(second!);
    const r = await viaLogin(p);
    assert.equal(r.code, 0, r.stderr);
    const third = n1.plane.packages.stickyExit(p.ports[0]!);
    assert.ok(third && third !== second && nyExits.includes(third));
  });

  test('switching to a whitelist applies within 2 s; login refused after it', async () => {
    const p = await insertPackage(db, 'n1');
    await waitFor(() => n1.gateway.authPorts().includes(p.ports[0]!), { timeoutMs: 2000 });
    await db.query(
      `UPDATE port_packages SET access_type = 'whitelist', whitelist_ips = '{127.0.0.3}' WHERE id = $1`,
      [p.id],
    );
    const started = Date.now();
    await waitFor(() => n1.plane.served.findByAuthPort(p.ports[0]!, '127.0.0.3') !== undefined, {
      timeoutMs: 2000,
    });
    assert.ok(Date.now() - started < 2000);
    const from3 = await fetchVia(`127.0.0.1:${p.ports[0]}`, 1000, ['--interface', '127.0.0.3']);
    assert.equal(from3.code, 0, from3.stderr);
    const from2 = await fetchVia(`127.0.0.1:${p.ports[0]}`, 1000, ['--interface', '127.0.0.2']);
    assert.notEqual(from2.code, 0);
    assert.notEqual((await viaLogin(p)).code, 0);
  });

  test('at the volume the package is suspended by the meter and its ports refuse within 5 s', async () => {
    const p = await insertPackage(db, 'n1');
    await waitFor(() => n1.gateway.authPorts().includes(p.ports[0]!), { timeoutMs: 2000 });
    // 20 KB left of the 1 Gb: the relay stops there, the meter's flush suspends the package.
    await db.query('UPDATE port_packages SET download = 1073741824 - 20000 WHERE id = $1', [p.id]);
    await n1.plane.packages.reload();
    assert.notEqual((await viaLogin(p, p.ports[0], p.password, 50_000)).code, 0, 'cut at the volume');
    const started = Date.now();
    const suspended = async () =>
      (await db.query<{ status: string }>('SELECT status FROM port_packages WHERE id = $1', [p.id]))[0]
        ?.status;
    await waitFor(async () => (await suspended()) === 'suspend', { timeoutMs: 5000, what: 'suspended' });
    await waitFor(() => !n1.gateway.authPorts().includes(p.ports[0]!), { timeoutMs: 5000 });
    assert.ok(Date.now() - started < 5000, `${Date.now() - started} ms`);
    assert.notEqual((await viaLogin(p)).code, 0);
    const [row] = await db.query<{ used: string; requests: string }>(
      'SELECT upload + download AS used, requests FROM port_packages WHERE id = $1',
      [p.id],
    );
    assert.equal(Number(row?.used), 1073741824, 'the counters reached the volume, not past it');
    assert.equal(Number(row?.requests), 1);
    const [hour] = await db.query<{ reqs: string; out_bytes: string }>(
      'SELECT reqs, out_bytes FROM package_traffic_hourly WHERE package_id = $1',
      [p.id],
    );
    assert.equal(Number(hour?.reqs), 1, 'and its hour');
    assert.ok(Number(hour?.out_bytes) > 19_000 && Number(hour?.out_bytes) < 20_000);
  });
});

describe('targeting in the user name', () => {
  test('a session pins an exit of the narrowed place; another country is refused', async () => {
    const p = await insertPackage(db, 'n1', { state: '' });
    await waitFor(() => n1.gateway.authPorts().includes(p.ports[0]!), { timeoutMs: 2000 });
    const port = p.ports[0]!;
    const via = (user: string) => fetchVia(`${user}:${p.password}@127.0.0.1:${port}`);
    const exitsSeen = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const r = await via(`${p.login}-country-us-city-new_york-session-abc123`);
      assert.equal(r.code, 0, r.stderr);
    }
    const session = n1.plane.served.findByPortCredentials!(
      port,
      `${p.login}-city-newyork-session-abc123`,
      p.password,
    );
    assert.ok(session);
    const isOnline = (id: string) => agents.has(id);
    for (let i = 0; i < 5; i++) exitsSeen.add(session.resolveAgent!(isOnline)!);
    assert.equal(exitsSeen.size, 1, 'a session keeps its exit');
    assert.notEqual((await via(`${p.login}-country-de`)).code, 0, 'outside the package');
    assert.notEqual((await via(`${p.login}-state-california`)).code, 0, 'no such exit on this node');
    assert.notEqual((await via(`${p.login}-zip-10001`)).code, 0, 'unknown key');
  });

  test('a place with no exit on this node is refused as an unknown place, by name, not as offline', async () => {
    const p = await insertPackage(db, 'n1', { state: '' });
    const port = p.ports[0]!;
    await waitFor(() => n1.gateway.authPorts().includes(port), { timeoutMs: 2000 });
    const user = `${p.login}-city-atlantis-session-s1`;
    // SOCKS5 can only say "not allowed by ruleset" (reply 2), where an offline exit says 1.
    const socks = await fetchVia(`${user}:${p.password}@127.0.0.1:${port}`);
    assert.notEqual(socks.code, 0);
    assert.match(socks.stderr.toString(), /\(2\)|not allowed/i, socks.stderr.toString());
    /** The response head of the package's HTTP twin for a request as `name`. */
    const proxyHead = async (name: string) =>
      (
        await curl(
          [
            '-sS',
            '-D',
            '-',
            '-o',
            '/dev/null',
            '-x',
            `http://${name}:${p.password}@127.0.0.1:${port + HTTP_OFFSET}`,
            `http://127.0.0.1:${target.port}/bytes/10`,
          ],
          5,
        )
      ).stdout.toString();
    // The HTTP twin names it.
    const head = await proxyHead(user);
    assert.match(head, /^HTTP\/1\.1 403 /);
    assert.match(head, /X-Proxy-Error: unknown place in the user name: no exit in city atlantis\r\n/);
    const outside = await proxyHead(`${p.login}-country-de`);
    assert.match(
      outside,
      /X-Proxy-Error: the user name targets country de, outside the package \(country US\)/,
    );
    // The password was right: not a refused sign-in, and no slow-down for the next try.
    await n1.plane.meter.flush();
    const [row] = await db.query<{ auth_fails: string }>(
      'SELECT auth_fails FROM port_packages WHERE id = $1',
      [p.id],
    );
    assert.equal(Number(row?.auth_fails), 0);
    assert.equal((await via(`${p.login}-city-new_york`)).code, 0, 'a known place right after');

    async function via(u: string) {
      return fetchVia(`${u}:${p.password}@127.0.0.1:${port}`);
    }
  });
});

describe('the HTTP proxy beside SOCKS5', () => {
  const httpVia = (proxy: string, extra: string[] = [], bytes = 1000) =>
    curl([...extra, '-x', proxy, `http://127.0.0.1:${target.port}/bytes/${bytes}`], 5);
  /** The HTTP status a request through `proxy` gets (the proxy's own refusal, or the target's answer). */
  const httpStatus = async (proxy: string, extra: string[] = []) =>
    (
      await curl(
        [
          '-s',
          '-o',
          '/dev/null',
          '-w',
          '%{http_code}',
          ...extra,
          '-x',
          proxy,
          `http://127.0.0.1:${target.port}/bytes/10`,
        ],
        5,
      )
    ).stdout.toString();

  test('a lease on the HTTP port: absolute-form and CONNECT with Basic auth; 407 without or wrong', async () => {
    const online = nyExits.find((id) => agents.has(id))!; // the rotation test closed one
    const lease = await insertLease(db, online, 'n1');
    await waitFor(() => n1.plane.directory.findByCredentials(lease.user, lease.pwd) !== undefined, {
      timeoutMs: 2000,
    });
    const port = n1.gateway.httpPorts[0]!;
    const plain = await httpVia(`http://${lease.user}:${lease.pwd}@127.0.0.1:${port}`);
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(plain.stdout.length, 1000);
    const tunnel = await httpVia(`http://${lease.user}:${lease.pwd}@127.0.0.1:${port}`, ['-p']);
    assert.equal(tunnel.code, 0, tunnel.stderr);
    assert.equal(tunnel.stdout.length, 1000);
    assert.equal(await httpStatus(`http://127.0.0.1:${port}`), '407');
    assert.equal(await httpStatus(`http://${lease.user}:x@127.0.0.1:${port}`), '407');
    // The data path reports to the meter every 200 ms; flush until both requests are in.
    const row = await waitFor(
      async () => {
        await n1.plane.meter.flush();
        const [r] = await db.query<{ reqs: string; out_bytes: string }>(
          'SELECT reqs, out_bytes FROM leases WHERE id = $1',
          [lease.id],
        );
        return Number(r?.reqs) >= 2 && r;
      },
      { timeoutMs: 3000, intervalMs: 100, what: 'both requests metered on the lease' },
    );
    assert.equal(Number(row.reqs), 2, 'both requests metered on the lease');
    assert.ok(Number(row?.out_bytes) >= 2000);
  });

  test("a package port's HTTP twin: login by Basic auth, then the whitelist after a switch", async () => {
    const p = await insertPackage(db, 'n1');
    const twin = p.ports[0]! + HTTP_OFFSET;
    await waitFor(() => n1.gateway.authPorts().includes(p.ports[0]!), { timeoutMs: 2000 });
    const r = await httpVia(`http://${p.login}:${p.password}@127.0.0.1:${twin}`, ['-p']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.length, 1000);
    await db.query(
      `UPDATE port_packages SET access_type = 'whitelist', whitelist_ips = '{127.0.0.3}' WHERE id = $1`,
      [p.id],
    );
    await waitFor(() => n1.plane.served.findByAuthPort(p.ports[0]!, '127.0.0.3') !== undefined, {
      timeoutMs: 2000,
    });
    const from3 = await httpVia(`http://127.0.0.1:${twin}`, ['--interface', '127.0.0.3']);
    assert.equal(from3.code, 0, from3.stderr);
    assert.equal(await httpStatus(`http://127.0.0.1:${twin}`, ['--interface', '127.0.0.2']), '403');
  });
});
