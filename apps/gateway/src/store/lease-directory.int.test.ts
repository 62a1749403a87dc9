import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDb, type DbHandle } from '@pm/db';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import { type CutProxy, startCutProxy } from './cut-proxy.testkit.ts';
import { createPgLeaseDirectory, type PgLeaseDirectory } from './lease-directory.ts';
import { insertAgent, insertLease, insertNode } from './network.testkit.ts';

let db: TestDatabase;
const closers: (() => Promise<void>)[] = [];

before(async () => {
  db = await createTestDatabase('lease_directory');
  await insertNode(db, 'n1');
  await insertNode(db, 'n2');
});
after(async () => {
  for (const close of closers.reverse()) await close();
  await db.drop();
});

async function directory(
  nodeId: string,
  handle: DbHandle = db,
  reloadMs = 30_000,
): Promise<PgLeaseDirectory> {
  const dir = createPgLeaseDirectory({ db: handle, nodeId, reloadMs });
  closers.push(() => dir.close());
  await dir.ready;
  return dir;
}

describe('loading and lookups', () => {
  test('each node sees only the leases of its own agents', async () => {
    const a1 = await insertAgent(db, 'n1');
    const a2 = await insertAgent(db, 'n2');
    const l1 = await insertLease(db, a1.id, 'n1');
    const l2 = await insertLease(db, a2.id, 'n2');
    const ended = await insertLease(db, a1.id, 'n1');
    await db.query('UPDATE leases SET ended_at = now() WHERE id = $1', [ended.id]);
    const d1 = await directory('n1');
    const d2 = await directory('n2');
    assert.equal(d1.findByCredentials(l1.user, l1.pwd)?.leaseId, l1.id);
    assert.equal(d1.findByCredentials(l1.user, l1.pwd)?.agentId, a1.id);
    assert.equal(d1.findByCredentials(l2.user, l2.pwd), undefined);
    assert.equal(d2.findByCredentials(l2.user, l2.pwd)?.leaseId, l2.id);
    assert.equal(d2.findByCredentials(l1.user, l1.pwd), undefined);
    assert.equal(d1.findByCredentials(ended.user, ended.pwd), undefined);
    assert.equal(d1.findByCredentials(l1.user, `${l1.pwd}x`), undefined);
    assert.equal(d1.findByCredentials(l1.user, ''), undefined);
    assert.equal(d1.findByCredentials('nobody', l1.pwd), undefined);
  });

  test('no-auth port: whitelisted addresses and CIDR ranges only', async () => {
    const agent = await insertAgent(db, 'n1');
    const lease = await insertLease(db, agent.id, 'n1', {
      authPort: 20001,
      whitelist: ['127.0.0.3', '10.1.0.0/24'],
    });
    const dir = await directory('n1');
    assert.ok(dir.authPorts().includes(20001));
    assert.equal(dir.findByAuthPort(20001, '127.0.0.3')?.leaseId, lease.id);
    assert.equal(dir.findByAuthPort(20001, '::ffff:127.0.0.3')?.leaseId, lease.id);
    assert.equal(dir.findByAuthPort(20001, '10.1.0.207')?.leaseId, lease.id);
    assert.equal(dir.findByAuthPort(20001, '10.1.1.7'), undefined);
    assert.equal(dir.findByAuthPort(20001, '127.0.0.2'), undefined);
    assert.equal(dir.findByAuthPort(20001, '10.2.0.1'), undefined);
    assert.equal(dir.findByAuthPort(20001, '::1'), undefined);
    assert.equal(dir.findByAuthPort(20002, '127.0.0.3'), undefined);
    // No-auth ports of another node are not listened on here.
    assert.equal((await directory('n2')).authPorts().includes(20001), false);
  });

  test('the end time is enforced in memory without a reload', async () => {
    const agent = await insertAgent(db, 'n1');
    const lease = await insertLease(db, agent.id, 'n1', { untilMs: Date.now() + 600 });
    const dir = await directory('n1');
    const revoked: string[] = [];
    dir.onRevoked((id) => revoked.push(id));
    assert.ok(dir.findByCredentials(lease.user, lease.pwd));
    await waitFor(() => dir.findByCredentials(lease.user, lease.pwd) === undefined, { timeoutMs: 2000 });
    await waitFor(() => revoked.includes(lease.id), { timeoutMs: 1000 });
  });
});

describe('changes arrive through NOTIFY within 2 seconds', () => {
  let dir: PgLeaseDirectory;
  let agentId: string;
  before(async () => {
    agentId = (await insertAgent(db, 'n1')).id;
    dir = await directory('n1');
  });

  test('a new lease', async () => {
    const lease = await insertLease(db, agentId, 'n1');
    await waitFor(() => dir.findByCredentials(lease.user, lease.pwd) !== undefined, { timeoutMs: 2000 });
  });

  test('a whitelist change, revoking and firing onAuthPortsChanged for a new port', async () => {
    const lease = await insertLease(db, agentId, 'n1');
    await waitFor(() => dir.findByCredentials(lease.user, lease.pwd) !== undefined, { timeoutMs: 2000 });
    const revoked: string[] = [];
    let portChanges = 0;
    const offRevoked = dir.onRevoked((id) => revoked.push(id));
    const offPorts = dir.onAuthPortsChanged(() => portChanges++);
    await db.query(`UPDATE leases SET auth_port = 20050, whitelist = '{127.0.0.3}' WHERE id = $1`, [
      lease.id,
    ]);
    await waitFor(() => dir.findByAuthPort(20050, '127.0.0.3') !== undefined, { timeoutMs: 2000 });
    assert.ok(portChanges >= 1);
    await db.query(`UPDATE leases SET whitelist = '{127.0.0.4}' WHERE id = $1`, [lease.id]);
    await waitFor(() => dir.findByAuthPort(20050, '127.0.0.4') !== undefined, { timeoutMs: 2000 });
    assert.equal(dir.findByAuthPort(20050, '127.0.0.3'), undefined);
    assert.ok(revoked.includes(lease.id));
    offRevoked();
    offPorts();
  });

  test('an ended lease and a refunded lease are revoked', async () => {
    const ended = await insertLease(db, agentId, 'n1');
    const refunded = await insertLease(db, agentId, 'n1');
    await waitFor(() => dir.findByCredentials(refunded.user, refunded.pwd) !== undefined, {
      timeoutMs: 2000,
    });
    const revoked = new Set<string>();
    dir.onRevoked((id) => revoked.add(id));
    await db.query('UPDATE leases SET ended_at = now() WHERE id = $1', [ended.id]);
    await db.query(
      'UPDATE leases SET ended_at = now(), refunded_at = now(), refund_amount_c = 100 WHERE id = $1',
      [refunded.id],
    );
    await waitFor(() => revoked.has(ended.id) && revoked.has(refunded.id), { timeoutMs: 2000 });
    assert.equal(dir.findByCredentials(ended.user, ended.pwd), undefined);
    assert.equal(dir.findByCredentials(refunded.user, refunded.pwd), undefined);
  });

  test('metering updates do not cause reloads', async () => {
    const lease = await insertLease(db, agentId, 'n1');
    await waitFor(() => dir.findByCredentials(lease.user, lease.pwd) !== undefined, { timeoutMs: 2000 });
    const entry = dir.findByCredentials(lease.user, lease.pwd);
    await db.query('UPDATE leases SET reqs = reqs + 1 WHERE id = $1', [lease.id]);
    // Notifications apply in order: once a later lease is loaded, a reload for the update would have been.
    const marker = await insertLease(db, agentId, 'n1');
    await waitFor(() => dir.findByCredentials(marker.user, marker.pwd), { timeoutMs: 2000 });
    // The same frozen entry object: nothing was reloaded for it.
    assert.equal(dir.findByCredentials(lease.user, lease.pwd), entry);
  });

  test('an agent moving to another node takes its leases along', async () => {
    const mover = await insertAgent(db, 'n1');
    const lease = await insertLease(db, mover.id, 'n2');
    await waitFor(() => dir.findByCredentials(lease.user, lease.pwd) !== undefined, { timeoutMs: 2000 });
    await db.query(`UPDATE agents SET node_id = 'n2' WHERE id = $1`, [mover.id]);
    await db.query(`UPDATE leases SET node_id = 'n2' WHERE id = $1`, [lease.id]);
    await waitFor(() => dir.findByCredentials(lease.user, lease.pwd) === undefined, { timeoutMs: 2000 });
  });
});

describe('PostgreSQL unreachable', () => {
  let proxy: CutProxy;
  let viaProxy: DbHandle;
  before(async () => {
    proxy = await startCutProxy(db.url);
    viaProxy = await createDb({ databaseUrl: proxy.url, maxConnections: 3 });
    closers.push(async () => {
      await viaProxy.close().catch(() => {});
      await proxy.close();
    });
  });

  test('for 10 seconds: known leases keep working, changes arrive after it is back', async () => {
    const agent = await insertAgent(db, 'n1');
    const known = await insertLease(db, agent.id, 'n1', { authPort: 20070, whitelist: ['127.0.0.3'] });
    const errors: unknown[] = [];
    const dir = createPgLeaseDirectory({
      db: viaProxy,
      nodeId: 'n1',
      reloadMs: 1000,
      onError: (e) => errors.push(e),
    });
    closers.push(() => dir.close());
    await dir.ready;
    assert.ok(dir.findByCredentials(known.user, known.pwd));

    proxy.cut();
    const missed = await insertLease(db, agent.id, 'n1');
    const cutUntil = Date.now() + 10_000;
    while (Date.now() < cutUntil) {
      assert.equal(dir.findByCredentials(known.user, known.pwd)?.leaseId, known.id);
      assert.equal(dir.findByAuthPort(20070, '127.0.0.3')?.leaseId, known.id);
      await new Promise((r) => setTimeout(r, 250)); // sleeps: the outage lasts 10 s of real time, checked throughout
    }
    assert.ok(errors.length > 0, 'the periodic reload failed while the database was unreachable');
    assert.equal(dir.findByCredentials(missed.user, missed.pwd), undefined);

    proxy.restore();
    // The periodic reload (1 s here) or the LISTEN reconnect picks up what was missed.
    await waitFor(() => dir.findByCredentials(missed.user, missed.pwd) !== undefined, { timeoutMs: 8000 });
    assert.ok(dir.findByCredentials(known.user, known.pwd));
  });
});
