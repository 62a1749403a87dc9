/**
 * Who may use a package's ports, and what its counters say, on the real data path: a blocked
 * customer's package refused on SOCKS and on its HTTP twin within 5 s with its open connection cut;
 * a private lease taking an agent closes the package connections through it within 2 s; the
 * packages' connections through an agent hold one sharer's part of its streams; a request for
 * exact counters (`package_flush`) reports open connections' bytes and stamps the package; refused
 * credentials count in `auth_fails` only.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { AgentHandle } from '@pm/agent';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import { createOverrideGeo } from '../geo/geo.ts';
import { curl, type HttpTarget, startHttpTarget } from '../session/harness.testkit.ts';
import { makeSelfSignedCert } from '../tunnel/self-signed.ts';
import {
  HTTP_OFFSET,
  insertLease,
  insertNode,
  insertPackage,
  type TestLease,
  type TestPackage,
} from './network.testkit.ts';
import { startTestNode, type TestNode } from './node.testkit.ts';
import {
  connectAgent,
  type Pull,
  packageCounters,
  pullThrough,
  type RawTarget,
  startRawTarget,
} from './package.testkit.ts';

const NY = { cc: 'US', reg: 'New York', city: 'New York', zip: '10001', isp: 'Example Cable', mob: false };
const LA = {
  cc: 'US',
  reg: 'California',
  city: 'Los Angeles',
  zip: '90001',
  isp: 'Example Mobile',
  mob: true,
};
const geo = createOverrideGeo({ '192.0.2.81': NY, '192.0.2.82': NY, '203.0.113.83': LA });
const tls = makeSelfSignedCert();
/** Streams per agent on this node: the packages' part together is 8 / 4 = 2. */
const STREAMS_PER_AGENT = 8;

let db: TestDatabase;
let node: TestNode;
let web: HttpTarget;
let hold: RawTarget;
const agents = new Map<string, AgentHandle>();
const nyExits: string[] = [];
let laExit: string;
const customer = `cust-${randomBytes(4).toString('hex')}`;
const bystander = `cust-${randomBytes(4).toString('hex')}`;

before(async () => {
  db = await createTestDatabase('package_access');
  web = await startHttpTarget();
  hold = await startRawTarget({ hold: 300_000 });
  node = await startTestNode(db, 'n1', {
    geo,
    tls,
    served: true,
    // Session bytes reach the meter only at close or when asked for (the flush request test).
    gateway: {
      httpPorts: [0],
      httpPortOffset: HTTP_OFFSET,
      maxStreamsPerAgent: STREAMS_PER_AGENT,
      meterFlushMs: 600_000,
    },
  });
  await insertNode(db, 'n2');
  for (const [ip, conn] of [
    ['192.0.2.81', 'wifi'],
    ['192.0.2.82', 'wifi'],
    ['203.0.113.83', 'cell'],
  ] as const) {
    const { id, agent } = await connectAgent(db, node, tls, ip, conn);
    agents.set(id, agent);
    if (conn === 'wifi') nyExits.push(id);
    else laExit = id;
  }
  for (const userId of [customer, bystander]) {
    await db.query('INSERT INTO accounts (user_id, email) VALUES ($1, $2)', [
      userId,
      `${userId}@example.test`,
    ]);
  }
  await node.plane.packages.reload();
});

after(async () => {
  for (const a of agents.values()) await a.close();
  await node?.gateway.close();
  await node?.plane.close();
  await web?.close();
  await hold?.close();
  await db?.drop();
});

/** A package of `userId` on node 1, listening. */
async function packageOf(userId: string, o: Parameters<typeof insertPackage>[2] = {}): Promise<TestPackage> {
  const p = await insertPackage(db, 'n1', { ...o, userId });
  await waitFor(() => node.gateway.authPorts().includes(p.ports[0]!), { timeoutMs: 3000 });
  return p;
}

const pull = (p: TestPackage, pwd = p.password) => pullThrough(p.ports[0]!, p.login, pwd, hold.port);
const viaTwin = (p: TestPackage, pwd = p.password) =>
  curl(
    [
      '-x',
      `http://${p.login}:${pwd}@127.0.0.1:${p.ports[0]! + HTTP_OFFSET}`,
      `http://127.0.0.1:${web.port}/bytes/100`,
    ],
    3,
  );
const httpStatus = async (proxy: string) =>
  (
    await curl(
      ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-x', proxy, `http://127.0.0.1:${web.port}/bytes/10`],
      3,
    )
  ).stdout.toString();
/** Whether the connection ends within `ms`. */
const endsWithin = (x: Pull, ms: number) =>
  Promise.race([x.ended.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
const refused = async (p: Promise<unknown>) =>
  p.then(
    () => false,
    () => true,
  );

describe('a blocked customer’s package', () => {
  test('refused on SOCKS and its HTTP twin within 5 s, its open connection cut; back on unblock', async () => {
    const p = await packageOf(customer);
    const open = await pull(p);
    await waitFor(() => open.received() === 300_000, { timeoutMs: 3000 });
    assert.equal((await viaTwin(p)).code, 0, 'the HTTP twin works before');
    const blockedAt = Date.now();
    await db.query('UPDATE accounts SET blocked = true WHERE user_id = $1', [customer]);
    assert.ok(await endsWithin(open, 5000), 'the open connection is cut within 5 s');
    await waitFor(() => !node.gateway.authPorts().includes(p.ports[0]!), {
      timeoutMs: 5000 - (Date.now() - blockedAt),
    });
    assert.ok(await refused(pull(p)), 'SOCKS refused');
    assert.notEqual((await viaTwin(p)).code, 0, 'HTTP twin refused');
    await node.plane.packages.reload();
    assert.ok(await refused(pull(p)), 'a full reload does not bring it back');
    await db.query('UPDATE accounts SET blocked = false WHERE user_id = $1', [customer]);
    await waitFor(() => node.gateway.authPorts().includes(p.ports[0]!), { timeoutMs: 5000 });
    const again = await pull(p);
    await waitFor(() => again.received() === 300_000, { timeoutMs: 3000 });
    again.socket.destroy();
  });
});

describe('a private lease on a package’s exit', () => {
  test('closes the package connections through that agent within 2 s; the next goes out elsewhere', async () => {
    const p = await packageOf(bystander);
    const open = await pull(p);
    await waitFor(() => open.received() === 300_000, { timeoutMs: 3000 });
    const exit = node.plane.packages.stickyExit(p.ports[0]!)!;
    assert.ok(nyExits.includes(exit));
    const lease = await insertLease(db, exit, 'n1', { exc: true, userId: customer });
    assert.ok(await endsWithin(open, 2000), 'the package connection through it is cut within 2 s');
    const next = await pull(p);
    await waitFor(() => next.received() === 300_000, { timeoutMs: 3000 });
    const other = node.plane.packages.stickyExit(p.ports[0]!);
    assert.ok(other && other !== exit && nyExits.includes(other), `now through ${other}`);
    // Targeted logins of the same place never get the private agent either.
    for (let i = 0; i < 4; i++) {
      const entry = node.plane.served.findByPortCredentials!(
        p.ports[0]!,
        `${p.login}-city-new_york`,
        p.password,
      );
      assert.notEqual(
        entry?.resolveAgent?.((id) => agents.has(id)),
        exit,
      );
    }
    next.socket.destroy();
    await db.query('UPDATE leases SET ended_at = now() WHERE id = $1', [lease.id]);
  });
});

describe('the packages’ share of an agent', () => {
  test('all packages through one agent hold one sharer’s part; a shared lease on it keeps its own', async () => {
    const la = { state: 'California', conn: 'mobile' } as const;
    const p1 = await packageOf(bystander, la);
    const p2 = await packageOf(bystander, la);
    const held: Pull[] = [await pull(p1), await pull(p1)];
    assert.ok(await refused(pull(p1)), 'a third connection of the package is refused');
    assert.ok(await refused(pull(p2)), 'and another package through the same agent too');
    const lease: TestLease = await insertLease(db, laExit, 'n1', { userId: customer });
    await waitFor(() => node.plane.directory.findByCredentials(lease.user, lease.pwd) !== undefined, {
      timeoutMs: 2000,
    });
    const viaLease = () => pullThrough(node.gateway.socksPorts[0]!, lease.user, lease.pwd, hold.port);
    held.push(await viaLease(), await viaLease());
    held.shift()!.socket.destroy();
    // The slot frees when the gateway sees the close.
    held.push(await waitFor(() => pull(p2).catch(() => null), { timeoutMs: 2000, what: 'a slot frees' }));
    for (const h of held) h.socket.destroy();
  });
});

describe('exact counters on request', () => {
  test('package_flush reports open connections’ bytes and stamps stats_flushed_at; another node’s package is left alone', async () => {
    const p = await packageOf(bystander);
    const idle = await packageOf(bystander);
    const elsewhere = await insertPackage(db, 'n2');
    const open = await pull(p);
    await waitFor(() => open.received() === 300_000, { timeoutMs: 3000 });
    await new Promise((r) => setTimeout(r, 1000)); // sleeps: two periodic flushes (500 ms) pass without reporting it
    assert.equal(
      (await packageCounters(db, p.id)).down,
      0,
      'not reported yet: the session flush is 10 minutes',
    );
    const stamped = async (id: string) =>
      (
        await db.query<{ ok: boolean }>(
          'SELECT stats_flushed_at >= flush_requested_at AS ok FROM port_packages WHERE id = $1',
          [id],
        )
      )[0]?.ok === true;
    const askedAt = Date.now();
    await db.query('UPDATE port_packages SET flush_requested_at = now() WHERE id = ANY($1)', [
      [p.id, idle.id, elsewhere.id],
    ]);
    await waitFor(async () => (await stamped(p.id)) && (await stamped(idle.id)), {
      timeoutMs: 2000,
      what: 'both stamped',
    });
    assert.ok(Date.now() - askedAt < 2000, `answered in ${Date.now() - askedAt} ms`);
    assert.equal((await packageCounters(db, p.id)).down, 300_000, 'the open connection’s bytes, exactly');
    await new Promise((r) => setTimeout(r, 300)); // sleeps: node 1 must leave node 2's request alone; absence needs a window
    assert.equal(await stamped(elsewhere.id), false, 'node 2’s package is node 2’s to answer');
    open.socket.destroy();
  });
});

describe('refused credentials', () => {
  test('count in auth_fails of the lease or package they name, never in its failures', async () => {
    const lease = await insertLease(db, nyExits[1]!, 'n1', { userId: customer });
    await waitFor(() => node.plane.directory.findByCredentials(lease.user, lease.pwd) !== undefined, {
      timeoutMs: 2000,
    });
    const p = await packageOf(bystander);
    const socks = node.gateway.socksPorts[0]!;
    assert.ok(await refused(pullThrough(socks, lease.user, 'wrong', hold.port)));
    assert.ok(await refused(pullThrough(socks, lease.user, 'wrong', hold.port)));
    assert.equal(
      await httpStatus(`http://${lease.user}:wrong@127.0.0.1:${node.gateway.httpPorts[0]}`),
      '407',
    );
    assert.ok(await refused(pull(p, 'wrong')));
    assert.equal(await httpStatus(`http://${p.login}:wrong@127.0.0.1:${p.ports[0]! + HTTP_OFFSET}`), '407');
    // No credentials at all (a browser's first try) names nobody.
    assert.equal(await httpStatus(`http://127.0.0.1:${p.ports[0]! + HTTP_OFFSET}`), '407');
    const leaseRow = async () =>
      (
        await db.query<Record<string, string>>('SELECT reqs, fails, auth_fails FROM leases WHERE id = $1', [
          lease.id,
        ])
      )[0]!;
    const l = await waitFor(
      async () => {
        const row = await leaseRow();
        return Number(row.auth_fails) >= 3 && row;
      },
      { timeoutMs: 3000, what: "the lease's three refusals flushed" },
    );
    assert.deepEqual([Number(l.reqs), Number(l.fails), Number(l.auth_fails)], [0, 0, 3]);
    const c = await waitFor(
      async () => {
        const counters = await packageCounters(db, p.id);
        return counters.authFails >= 2 && counters;
      },
      { timeoutMs: 3000, what: "the package's two refusals flushed" },
    );
    assert.deepEqual([c.requests, c.errors, c.authFails], [0, 0, 2]);
  });
});
