/**
 * Several hosts on one PostgreSQL (issue 29): network namespaces run two market APIs, two workers,
 * two gateway nodes with agents on hosts of their own, and a customers' host (test/fleet.ts), each
 * a real process started as docs/deploying.md says. Needs root and `ip netns` (CI has both);
 * elsewhere it is skipped with the reason.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { STAFF_PERMISSIONS, ZAuthPortCreateResponse, ZLease } from '@pm/contracts';
import { buildAccount, createTestDatabase, newUserId, type TestDatabase } from '@pm/db/testing';
import { netnsAvailable } from '@pm/devnet/netns';
import { waitFor } from '@pm/testkit';
import { type Fleet, type FleetAgent, SOCKS_BASE_PORT, startFleet } from './test/fleet.ts';
import { curlFromCustomers as curlFromFleet } from './test/fleet-client.ts';
import { checkJobsOnce, checkWorkerKill } from './test/fleet-jobs.ts';
import { ACCESS_LIMIT_MS, checkPackageAccess } from './test/fleet-packages.ts';

const run = promisify(execFile);
const available = netnsAvailable();
/** What the guide and docs/benchmarks.md state for a node's agents to be back on another node. */
export const RECONNECT_LIMIT_MS = 5000;

let db: TestDatabase;
let fleet: Fleet;

/** `fetch` to API `i` (0: A, 1: B) as `userId`, with a fresh token from the test issuer. */
async function api(i: 0 | 1, method: string, path: string, userId: string, body?: unknown, staff = false) {
  const token = await fleet.issuer.sign(userId, {
    permissions: staff ? [...STAFF_PERMISSIONS] : [],
    email: `${userId}@example.test`,
  });
  const res = await fetch(`${fleet.apis[i]}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.text()) || 'null' };
}

/** curl from the customers' host (test/fleet-client.ts). */
const curlFromCustomers = (args: string[], timeoutS = 2) => curlFromFleet(fleet, args, timeoutS);

/** Tries `attempt` every 100 ms until it answers `want` or `timeoutMs` passes; resolves with the time taken. */
async function timeUntil(
  attempt: () => Promise<{ ok: boolean; out: string }>,
  want: string,
  timeoutMs: number,
) {
  const start = Date.now();
  await waitFor(
    async () => {
      const last = await attempt();
      return last.ok && last.out === want;
    },
    { timeoutMs, intervalMs: 100, what: `"${want}"` },
  );
  return Date.now() - start;
}

const viaSocks = (user: string, pwd: string, ip: string) => () =>
  curlFromCustomers(['--socks5', `${user}:${pwd}@${ip}:${SOCKS_BASE_PORT + 2080}`, `${fleet.targetUrl}/ip`]);

/** The agents' rows: online and on the node each host dials first. */
async function waitAgentsOn(expected: (a: FleetAgent) => string, timeoutMs: number): Promise<void> {
  let rows: { id: string; node_id: string | null; online: boolean }[] = [];
  await waitFor(
    async () => {
      rows = await db.query<{ id: string; node_id: string | null; online: boolean }>(
        'SELECT id, node_id, online FROM agents WHERE id = ANY($1)',
        [fleet.agents.map((a) => a.id)],
      );
      return fleet.agents.every((a) => {
        const row = rows.find((r) => r.id === a.id);
        return row?.online && row.node_id === expected(a);
      });
    },
    { timeoutMs, intervalMs: 200, what: 'the agents on their nodes' },
  ).catch((e: Error) => {
    throw new Error(`${e.message}: ${JSON.stringify(rows)}\n${fleet.logs()}`);
  });
}

const ownNode = (a: FleetAgent) => (a.host === 'ag1' ? 'gw1' : 'gw2');

/** A customer with money buys `agent` through API `i` (with `probe`: the node tests the agent first). */
async function buy(i: 0 | 1, agent: FleetAgent, probe: boolean) {
  const buyer = await buildAccount(db, { userId: newUserId('fleet'), balanceC: 10_000 });
  const res = await api(i, 'POST', '/leases', buyer.userId, {
    agentID: agent.id,
    expPriceC: 500,
    exc: true,
    probe,
  });
  assert.equal(res.status, 201, res.body);
  return { userId: buyer.userId, lease: ZLease.parse(JSON.parse(res.body)) };
}

describe('several hosts on one PostgreSQL', {
  skip: available.ok ? false : `skipped: ${!available.ok && available.reason}`,
}, () => {
  before(
    async () => {
      db = await createTestDatabase('multihost');
      fleet = await startFleet(db);
      await waitAgentsOn(ownNode, 30_000);
      const prices = await api(
        0,
        'PUT',
        '/pricing/rules',
        newUserId('pricer'),
        { rules: [{ priceExcC: 500, priceShrC: 200 }] },
        true,
      );
      assert.equal(prices.status, 200, prices.body);
    },
    { timeout: 150_000 },
  );
  after(async () => {
    await fleet?.close();
    await db?.drop();
  });

  const leases: { agent: FleetAgent; lease: ReturnType<typeof ZLease.parse>; userId: string }[] = [];

  // First: a port package's exits are agents without an exclusive lease (the next test leases all four).
  test(`a port package's login and whitelist set through either API reach gateway B within ${ACCESS_LIMIT_MS / 1000} s`, {
    timeout: 60_000,
  }, async () => {
    const { toLoginMs, toWhitelistMs } = await checkPackageAccess(db, fleet, curlFromCustomers);
    console.log(
      `package port on gateway B: login through API A served after ${toLoginMs} ms, whitelist through API B after ${toWhitelistMs} ms`,
    );
  });

  test("a lease bought through either API works on its node, from the customers' host", {
    timeout: 60_000,
  }, async () => {
    // Agents 0, 1 on gateway A, 2, 3 on B; bought through API A, B, A, B. The first and the last
    // sale ask their node for a purchase probe: the API's request reaches the node through
    // PostgreSQL, and the sale goes through only if that node's probe through the agent passed.
    for (const [i, agent] of fleet.agents.entries()) {
      const { lease, userId } = await buy((i % 2) as 0 | 1, agent, i === 0 || i === 3);
      assert.equal(lease.socks.ip, fleet.net.hosts[ownNode(agent)]!.address, 'the lease names its node');
      leases.push({ agent, lease, userId });
    }
    for (const { agent, lease } of leases) {
      const exit = fleet.net.hosts[agent.host]!.address;
      await timeUntil(viaSocks(lease.socks.user, lease.socks.pwd, lease.socks.ip), exit, 5000);
    }
  });

  test('a whitelist set through API A reaches gateway B within 2 seconds', { timeout: 30_000 }, async () => {
    const onB = leases.find((l) => ownNode(l.agent) === 'gw2');
    assert.ok(onB, 'a lease on gateway B');
    const customers = fleet.net.hosts.cust!.address;
    const res = await api(0, 'POST', `/authport/create/${onB.lease.id}`, onB.userId, customers);
    assert.equal(res.status, 200, res.body);
    const { authPort } = ZAuthPortCreateResponse.parse(JSON.parse(res.body));
    assert.equal(authPort.node, fleet.net.hosts.gw2!.address, 'the port is on gateway B');
    const gwB = fleet.net.hosts.gw2!.address;
    const took = await timeUntil(
      () => curlFromCustomers(['--socks5', `${gwB}:${authPort.port}`, `${fleet.targetUrl}/ip`], 1),
      fleet.net.hosts[onB.agent.host]!.address,
      2000,
    );
    console.log(`whitelist through API A served by gateway B after ${took} ms`);
    // The root namespace (the bridge's address) is not on the whitelist: refused.
    const outsider = await run('curl', [
      '-sS',
      '--max-time',
      '2',
      '--socks5',
      `${gwB}:${authPort.port}`,
      `${fleet.targetUrl}/ip`,
    ]).then(
      () => 'served',
      () => 'refused',
    );
    assert.equal(outsider, 'refused', 'an address off the whitelist');
  });

  test('rate limits hold across the two APIs', { timeout: 30_000 }, async () => {
    const userId = newUserId('limited');
    const codes: number[] = [];
    // POST /authport/create: 30 a minute per user; an unknown lease still counts.
    for (let n = 0; n < 34; n++)
      codes.push(
        (await api((n % 2) as 0 | 1, 'POST', '/authport/create/zz-0000', userId, '10.0.0.1')).status,
      );
    assert.equal(codes.filter((c) => c !== 429).length, 30, codes.join(' '));
    assert.deepEqual(codes.slice(30), [429, 429, 429, 429]);
  });

  test('two workers run every job exactly once; a worker killed mid-batch loses nothing', {
    timeout: 120_000,
  }, async () => {
    await checkJobsOnce(db);
    await checkWorkerKill(db, fleet);
  });

  test(`a gateway node killed: its agents reconnect to the other, their leases work again within ${RECONNECT_LIMIT_MS / 1000} s`, {
    timeout: 60_000,
  }, async () => {
    const onA = leases.filter((l) => ownNode(l.agent) === 'gw1');
    const gwB = fleet.net.hosts.gw2!.address;
    const killed = Date.now();
    await fleet.gateways.gw1.stop('SIGKILL');
    await waitAgentsOn(() => 'gw2', RECONNECT_LIMIT_MS);
    for (const { agent, lease } of onA) {
      await timeUntil(
        viaSocks(lease.socks.user, lease.socks.pwd, gwB),
        fleet.net.hosts[agent.host]!.address,
        RECONNECT_LIMIT_MS - (Date.now() - killed),
      );
    }
    console.log(
      `gateway A killed: its ${onA.length} agents' leases worked through gateway B after ${Date.now() - killed} ms`,
    );
  });
});
