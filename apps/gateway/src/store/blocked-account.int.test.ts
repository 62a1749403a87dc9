/**
 * Blocking reaches the data path (issue 23 hole 8): when staff block a customer (the identity host
 * sets `accounts.blocked`), the gateway stops serving that customer's leases within 5 seconds, on
 * the password ports and the no-auth whitelist port alike, and unblocking restores the leases that
 * have not ended meanwhile. Real SOCKS traffic through a gateway and an agent on loopback.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type AgentHandle, startAgent } from '@pm/agent';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import { freePort } from '../free-port.ts';
import type { GatewayHandle } from '../gateway.ts';
import { createOverrideGeo } from '../geo/geo.ts';
import { assertPatternBytes, curl, type HttpTarget, startHttpTarget } from '../session/harness.testkit.ts';
import { makeSelfSignedCert } from '../tunnel/self-signed.ts';
import type { PgLeaseDirectory } from './lease-directory.ts';
import { insertAgent, insertLease, type TestLease } from './network.testkit.ts';
import { startTestNode } from './node.testkit.ts';

const BLOCK_DEADLINE_MS = 5000;
/** How far the control plane's clock runs ahead of the machine's: a test passes a lease's end by moving it. */
let skewMs = 0;
let db: TestDatabase;
let target: HttpTarget;
let gateway: GatewayHandle;
let directory: PgLeaseDirectory;
let closeControlPlane: () => Promise<void>;
let agent: AgentHandle;
let agentId: string;
let authPort: number;
const customer = `cust-${randomBytes(4).toString('hex')}`;
const bystander = `cust-${randomBytes(4).toString('hex')}`;
let byPassword: TestLease;
let byWhitelist: TestLease;
let bystanders: TestLease;

const fetchVia = (proxy: string, extra: string[] = []) =>
  curl([...extra, '--socks5-hostname', proxy, `http://127.0.0.1:${target.port}/bytes/1000`], 3);
const withPassword = (l: TestLease) => fetchVia(`${l.user}:${l.pwd}@127.0.0.1:${gateway.socksPorts[0]}`);
const fromWhitelist = () => fetchVia(`127.0.0.1:${authPort}`, ['--interface', '127.0.0.3']);
const setBlocked = (userId: string, blocked: boolean) =>
  db.query('UPDATE accounts SET blocked = $2 WHERE user_id = $1', [userId, blocked]);
const served = (l: TestLease) => directory.findByCredentials(l.user, l.pwd) !== undefined;

async function assertWorks(label: string, fetch: () => ReturnType<typeof fetchVia>): Promise<void> {
  const res = await fetch();
  assert.equal(res.code, 0, `${label}: ${res.stderr}`);
  assertPatternBytes(res.stdout, 1000);
}

before(async () => {
  db = await createTestDatabase('gateway_blocked');
  target = await startHttpTarget();
  const tls = makeSelfSignedCert();
  const { plane, gateway: started } = await startTestNode(db, 'n1', {
    geo: createOverrideGeo({}),
    tls,
    now: () => Date.now() + skewMs,
  });
  directory = plane.directory;
  closeControlPlane = plane.close;
  gateway = started;
  const a = await insertAgent(db, null);
  agentId = a.id;
  agent = startAgent({
    gateway: { host: '127.0.0.1', port: gateway.tunnelPort },
    key: a.key,
    tls: { ca: tls.cert },
    allowLoopback: true,
    ipOverride: '192.0.2.41',
    conn: 'wifi',
    dev: 'android',
    backoffMinMs: 50,
    backoffMaxMs: 500,
  });
  await agent.waitConnected(5000);
  await plane.registry.idle();
  for (const userId of [customer, bystander]) {
    await db.query('INSERT INTO accounts (user_id, email) VALUES ($1, $2)', [
      userId,
      `${userId}@example.test`,
    ]);
  }
  authPort = await freePort();
  byPassword = await insertLease(db, agentId, 'n1', { userId: customer });
  byWhitelist = await insertLease(db, agentId, 'n1', {
    userId: customer,
    authPort,
    whitelist: ['127.0.0.3'],
  });
  bystanders = await insertLease(db, agentId, 'n1', { userId: bystander });
  await waitFor(() => served(byPassword) && served(bystanders), { timeoutMs: 3000 });
  await waitFor(() => gateway.authPorts().includes(authPort), { timeoutMs: 3000 });
});

after(async () => {
  await agent?.close();
  await gateway?.close();
  await closeControlPlane?.();
  await target?.close();
  await db?.drop();
});

describe('a blocked customer at the gateway', () => {
  test('traffic works before, is refused within 5 s of the block, and comes back on unblock', async () => {
    await assertWorks('password, before', () => withPassword(byPassword));
    await assertWorks('whitelist, before', fromWhitelist);

    const revoked: string[] = [];
    const off = directory.onRevoked((id) => revoked.push(id));
    const blockedAt = Date.now();
    await setBlocked(customer, true);
    assert.ok(
      await waitFor(() => !served(byPassword) && !gateway.authPorts().includes(authPort), {
        timeoutMs: BLOCK_DEADLINE_MS,
      }),
      'the gateway still serves the blocked customer after 5 s',
    );
    const tookMs = Date.now() - blockedAt;
    assert.ok(tookMs < BLOCK_DEADLINE_MS, `took ${tookMs} ms`);
    off();
    assert.ok(
      revoked.includes(byPassword.id) && revoked.includes(byWhitelist.id),
      'open connections are cut',
    );
    assert.notEqual((await withPassword(byPassword)).code, 0, 'password SOCKS refused');
    assert.notEqual((await fromWhitelist()).code, 0, 'no-auth whitelist port refused');
    await assertWorks('another customer on the same agent', () => withPassword(bystanders));

    // Another full reload (the periodic one) must not bring the blocked leases back.
    await directory.reload();
    assert.equal(served(byPassword), false);

    await setBlocked(customer, false);
    await waitFor(() => served(byPassword) && gateway.authPorts().includes(authPort), {
      timeoutMs: BLOCK_DEADLINE_MS,
    });
    await assertWorks('password, after unblock', () => withPassword(byPassword));
    await assertWorks('whitelist, after unblock', fromWhitelist);
  });

  test('unblocking does not restore a lease that ended while blocked', async () => {
    const shortLived = await insertLease(db, agentId, 'n1', {
      userId: customer,
      untilMs: Date.now() + 60_000,
    });
    await waitFor(() => served(shortLived), { timeoutMs: 3000 });
    await setBlocked(customer, true);
    await waitFor(() => !served(shortLived) && !served(byPassword), { timeoutMs: BLOCK_DEADLINE_MS });
    skewMs = 61_000; // the short-lived lease ends while the customer is blocked
    await setBlocked(customer, false);
    await waitFor(() => served(byPassword), {
      timeoutMs: BLOCK_DEADLINE_MS,
      what: 'the live lease comes back',
    });
    assert.equal(served(shortLived), false, 'the ended one does not');
    assert.notEqual((await withPassword(shortLived)).code, 0);
  });
});
