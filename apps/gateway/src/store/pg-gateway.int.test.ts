/**
 * The control plane under the real data path: two gateway nodes on one PostgreSQL database, each with
 * its PostgreSQL lease directory, meter and agent registry, and real agents dialing them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type AgentHandle, startAgent } from '@pm/agent';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import { freePort } from '../free-port.ts';
import type { GatewayHandle } from '../gateway.ts';
import { createOverrideGeo } from '../geo/geo.ts';
import type { PgLeaseMeter } from '../metering/lease-meter.ts';
import { assertPatternBytes, curl, type HttpTarget, startHttpTarget } from '../session/harness.testkit.ts';
import { makeSelfSignedCert } from '../tunnel/self-signed.ts';
import type { PgAgentRegistry } from './agent-registry.ts';
import type { PgLeaseDirectory } from './lease-directory.ts';
import { insertAgent, insertLease, type TestLease } from './network.testkit.ts';
import { startTestNode } from './node.testkit.ts';

interface Node {
  id: string;
  registry: PgAgentRegistry;
  directory: PgLeaseDirectory;
  meter: PgLeaseMeter;
  gateway: GatewayHandle;
  close(): Promise<void>;
}

let db: TestDatabase;
let target: HttpTarget;
const nodes: Node[] = [];
const agents: AgentHandle[] = [];

/** Both nodes' tunnels use one throwaway certificate, as nodes behind one name would. */
const tls = makeSelfSignedCert();

const geo = createOverrideGeo({
  '192.0.2.41': { cc: 'US', reg: 'TX', city: 'Austin', zip: '73301', isp: 'Example Cable', mob: false },
  '203.0.113.42': { cc: 'GB', reg: 'ENG', city: 'London', zip: 'EC1A', isp: 'Example Mobile', mob: true },
});

async function startNode(id: string): Promise<Node> {
  const { plane, gateway } = await startTestNode(db, id, { geo, tls, gateway: { socksPorts: [0, 0, 0, 0] } });
  const { registry, directory, meter, close } = plane;
  return { id, registry, directory, meter, gateway, close };
}

const fetchVia = (proxy: string, bytes = 1000, extra: string[] = []) =>
  curl([...extra, '--socks5-hostname', proxy, `http://127.0.0.1:${target.port}/bytes/${bytes}`], 5);

describe('two gateway nodes on one database', () => {
  let n1: Node;
  let n2: Node;
  let l1: TestLease;
  let l2: TestLease;
  let agent1: string;
  let agent2: string;

  before(async () => {
    db = await createTestDatabase('pg_gateway');
    target = await startHttpTarget();
    n1 = await startNode('n1');
    n2 = await startNode('n2');
    nodes.push(n1, n2);
    const a1 = await insertAgent(db, null);
    const a2 = await insertAgent(db, null);
    agent1 = a1.id;
    agent2 = a2.id;
    for (const [key, node, ip, conn] of [
      [a1.key, n1, '192.0.2.41', 'wifi'],
      [a2.key, n2, '203.0.113.42', 'cell'],
    ] as const) {
      const agent = startAgent({
        gateway: { host: '127.0.0.1', port: node.gateway.tunnelPort },
        key,
        tls: { ca: tls.cert },
        allowLoopback: true,
        ipOverride: ip,
        conn,
        dev: 'android',
        backoffMinMs: 50,
        backoffMaxMs: 500,
      });
      agents.push(agent);
      await agent.waitConnected(5000);
    }
    await n1.registry.idle();
    await n2.registry.idle();
    l1 = await insertLease(db, a1.id, 'n1');
    l2 = await insertLease(db, a2.id, 'n2');
    await waitFor(() => n1.directory.findByCredentials(l1.user, l1.pwd) !== undefined, { timeoutMs: 2000 });
    await waitFor(() => n2.directory.findByCredentials(l2.user, l2.pwd) !== undefined, { timeoutMs: 2000 });
  });

  after(async () => {
    for (const a of agents) await a.close();
    for (const n of nodes) {
      await n.gateway.close();
      await n.close();
    }
    await target?.close();
    await db?.drop();
  });

  test('agents rows: node, synthetic identity, location, online', async () => {
    const rows = await db.query<{
      id: string;
      node_id: string;
      ip: string;
      city: string;
      conn: string;
      online: boolean;
    }>('SELECT id, node_id, ip, city, conn, online FROM agents WHERE id = ANY($1) ORDER BY node_id', [
      [agent1, agent2],
    ]);
    assert.deepEqual(
      rows.map((r) => [r.id, r.node_id, r.ip, r.city, r.conn, r.online]),
      [
        [agent1, 'n1', '192.0.2.41', 'Austin', 'wifi', true],
        [agent2, 'n2', '203.0.113.42', 'London', 'cell', true],
      ],
    );
  });

  test('each lease works on its own node on all four ports, and only there; counters reach the database', async () => {
    for (const port of n1.gateway.socksPorts) {
      const r = await fetchVia(`${l1.user}:${l1.pwd}@127.0.0.1:${port}`, 5000);
      assert.equal(r.code, 0, r.stderr);
      assertPatternBytes(r.stdout, 5000);
    }
    const r2 = await fetchVia(`${l2.user}:${l2.pwd}@127.0.0.1:${n2.gateway.socksPorts[0]}`);
    assert.equal(r2.code, 0, r2.stderr);
    const wrongNode = await fetchVia(`${l2.user}:${l2.pwd}@127.0.0.1:${n1.gateway.socksPorts[0]}`);
    assert.notEqual(wrongNode.code, 0);
    const wrongPwd = await fetchVia(`${l1.user}:nope@127.0.0.1:${n1.gateway.socksPorts[0]}`);
    assert.notEqual(wrongPwd.code, 0);

    await waitFor(() => n1.gateway.openConnections() === 0, { timeoutMs: 3000 });
    // The data path reports to the meter every 200 ms; flush until the four requests are in.
    const row = await waitFor(
      async () => {
        await n1.meter.flush();
        const [r] = await db.query<{ reqs: string; fails: string; in_bytes: string; out_bytes: string }>(
          'SELECT reqs, fails, in_bytes, out_bytes FROM leases WHERE id = $1',
          [l1.id],
        );
        return Number(r?.reqs) >= 4 && r;
      },
      { timeoutMs: 3000, intervalMs: 100, what: 'the four requests metered' },
    );
    assert.equal(Number(row.reqs), 4);
    assert.equal(Number(row?.fails), 0);
    assert.ok(Number(row?.out_bytes) > 4 * 5000, `out ${row?.out_bytes}`);
    assert.ok(Number(row?.in_bytes) > 0);
  });

  test('no-auth port: whitelisted source only, and a whitelist change within 2 seconds', async () => {
    const port = await freePort();
    await db.query(`UPDATE leases SET auth_port = $2, whitelist = '{127.0.0.3}' WHERE id = $1`, [
      l2.id,
      port,
    ]);
    assert.ok(
      await waitFor(() => n2.gateway.authPorts().includes(port), { timeoutMs: 2000 }),
      'node 2 listens on the no-auth port',
    );
    assert.equal(n1.gateway.authPorts().includes(port), false);
    const from2 = await fetchVia(`127.0.0.1:${port}`, 1000, ['--interface', '127.0.0.2']);
    assert.notEqual(from2.code, 0);
    const from3 = await fetchVia(`127.0.0.1:${port}`, 1000, ['--interface', '127.0.0.3']);
    assert.equal(from3.code, 0, from3.stderr);
    assertPatternBytes(from3.stdout, 1000);

    await db.query(`UPDATE leases SET whitelist = '{127.0.0.0/30}' WHERE id = $1`, [l2.id]);
    await waitFor(() => n2.directory.findByAuthPort(port, '127.0.0.2') !== undefined, { timeoutMs: 2000 });
    const later = await fetchVia(`127.0.0.1:${port}`, 1000, ['--interface', '127.0.0.2']);
    assert.equal(later.code, 0, later.stderr);
  });

  test('a lease that ends stops working within 2 seconds', async () => {
    const lease = await insertLease(db, agent1, 'n1');
    await waitFor(() => n1.directory.findByCredentials(lease.user, lease.pwd) !== undefined, {
      timeoutMs: 2000,
    });
    const proxy = `${lease.user}:${lease.pwd}@127.0.0.1:${n1.gateway.socksPorts[1]}`;
    assert.equal((await fetchVia(proxy)).code, 0);
    await db.query('UPDATE leases SET ended_at = now(), refunded_at = now() WHERE id = $1', [lease.id]);
    const started = Date.now();
    await waitFor(() => n1.directory.findByCredentials(lease.user, lease.pwd) === undefined, {
      timeoutMs: 2000,
    });
    assert.notEqual((await fetchVia(proxy)).code, 0);
    assert.ok(Date.now() - started < 2000 + 5000);
  });
});
