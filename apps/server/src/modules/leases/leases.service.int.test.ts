import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isAppError, LEASE_ID_PATTERN, ZLease } from '@pm/contracts';
import { buildAgent, buildNode, createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { cents } from '@pm/money';
import { createLeaseService, type LeaseService } from './leases.service.ts';

let db: TestDatabase;
let service: LeaseService;
/** How far the lease service's clock runs ahead: a test passes a lease's end by moving it, not by waiting. */
let skewMs = 0;
let nodeId: string;

before(async () => {
  db = await createTestDatabase('lease_service');
  service = createLeaseService({ db: db.db, now: () => Date.now() + skewMs });
  nodeId = (
    await buildNode(db, { publicHost: 'gw1.example.test', publicIp: '198.51.100.1', socksBasePort: 7000 })
  ).id;
});
after(async () => {
  await db.drop();
});

const errorCodeOf = (e: unknown): unknown => (isAppError(e) ? e.details?.errorCode : undefined);

describe('createLease', () => {
  test('allocates an id, credentials and the socks address of the agent node', async () => {
    const agent = await buildAgent(db, { nodeId });
    const lease = await service.createLease({
      userId: 'u1',
      agentId: agent.id,
      exc: false,
      purchasePriceC: cents(200),
    });
    assert.match(lease.id, LEASE_ID_PATTERN);
    assert.ok(lease.socks);
    assert.equal(lease.socks.host, 'gw1.example.test');
    assert.equal(lease.socks.ip, '198.51.100.1');
    assert.equal(lease.socks.port, 7000);
    assert.deepEqual(
      lease.socks.ports,
      [9080, 10_080, 11_080, 12_080],
      'the four SOCKS ports of a base-7000 node',
    );
    assert.equal(lease.socks.httpPort, 13_080);
    assert.match(lease.socks.user, /^[a-z0-9]{10}$/);
    assert.match(lease.socks.pwd, /^[A-Za-z0-9]{16}$/);
    assert.equal(lease.authPort, null);
    assert.equal(lease.purchasePriceC, 200);
    assert.equal(Date.parse(lease.until) - Date.parse(lease.start), 24 * 3600 * 1000);
    assert.deepEqual(lease.stats, {
      reqs: 0,
      failPct: 0,
      authFails: 0,
      inBytes: 0,
      outBytes: 0,
      refundable: false,
    });
    assert.equal(lease.info.loc.city, 'San Jose');
  });

  test('the lease has the shape of rules §3 "Lease (active)"', async () => {
    const agent = await buildAgent(db, {
      nodeId,
      speedBps: 2_000_000,
      speedCheckedAt: new Date(),
      speedStatus: 'ok',
    });
    const lease = ZLease.parse(await service.createLease({ userId: 'shape', agentId: agent.id, exc: true }));
    assert.equal(lease.agent, `/agents/${agent.id}`);
    assert.equal(lease.user, 'shape');
    assert.equal(lease.renewable, false);
    assert.deepEqual(lease.info, {
      ip: '192.0.2.10',
      host: '',
      loc: { cc: 'US', reg: 'CA', city: 'San Jose', zip: '95131', isp: 'Example ISP', mob: false },
      score: 5,
      leases: 0,
      age: null,
      actv: 0,
      conn: 'wifi',
      blacklists: [],
    });
    // currentInfo is the agent now: this lease counts, and the speed test shows.
    assert.equal(lease.currentInfo.leases, 1);
    assert.equal(lease.currentInfo.speed?.bps, 2_000_000);
    assert.equal(lease.currentInfo.speedCheck, 'ok');
    const soon = await service.createLease({
      userId: 'shape',
      agentId: (await buildAgent(db, { nodeId })).id,
      exc: false,
      untilMs: Date.now() + 3600_000,
    });
    assert.equal(soon.renewable, true);
  });

  test('refuses a fifth shared lease, a private lease on a shared agent and anything on a private one', async () => {
    const shared = await buildAgent(db, { nodeId });
    for (let i = 0; i < 4; i++)
      await service.createLease({ userId: `u${i}`, agentId: shared.id, exc: false });
    await assert.rejects(service.createLease({ userId: 'u5', agentId: shared.id, exc: false }), (e) => {
      return errorCodeOf(e) === 'agentAlreadyLeased';
    });
    await assert.rejects(service.createLease({ userId: 'u5', agentId: shared.id, exc: true }), (e) => {
      return errorCodeOf(e) === 'agentAlreadyLeased';
    });
    const priv = await buildAgent(db, { nodeId });
    await service.createLease({ userId: 'p', agentId: priv.id, exc: true });
    await assert.rejects(service.createLease({ userId: 'q', agentId: priv.id, exc: false }), (e) => {
      return errorCodeOf(e) === 'agentAlreadyLeased';
    });
  });

  test('an ended or expired lease frees its place', async () => {
    const agent = await buildAgent(db, { nodeId });
    const first = await service.createLease({ userId: 'a', agentId: agent.id, exc: true });
    await service.endLease(first.id);
    const expired = await service.createLease({
      userId: 'b',
      agentId: agent.id,
      exc: true,
      untilMs: Date.now() + 300,
    });
    skewMs = 400; // the service's clock passes the lease's end: the sale's SQL reads that clock
    try {
      const third = await service.createLease({ userId: 'c', agentId: agent.id, exc: true });
      assert.notEqual(third.id, expired.id);
    } finally {
      skewMs = 0;
    }
  });

  test('unknown agent and agent never connected are agentNotFound', async () => {
    await assert.rejects(service.createLease({ userId: 'a', agentId: 'nope', exc: false }), (e) => {
      return errorCodeOf(e) === 'agentNotFound';
    });
    const idle = await buildAgent(db, { nodeId: null });
    await assert.rejects(service.createLease({ userId: 'a', agentId: idle.id, exc: false }), (e) => {
      return errorCodeOf(e) === 'agentNotFound';
    });
  });

  test('many simultaneous purchases never exceed 4 shared or 1 private per agent', async () => {
    const sharedAgent = await buildAgent(db, { nodeId });
    const privateAgent = await buildAgent(db, { nodeId });
    const attempts = Array.from({ length: 40 }, (_, i) =>
      service.createLease({
        userId: `c${i}`,
        agentId: i % 2 ? sharedAgent.id : privateAgent.id,
        exc: i % 2 === 0,
      }),
    );
    const results = await Promise.allSettled(attempts);
    for (const r of results) {
      if (r.status === 'rejected')
        assert.equal(errorCodeOf(r.reason), 'agentAlreadyLeased', String(r.reason));
    }
    const rows = await db.query<{ agent_id: string; n: number; excl: number }>(
      'SELECT agent_id, count(*)::int AS n, count(*) FILTER (WHERE exc)::int AS excl FROM leases WHERE agent_id = ANY($1) GROUP BY agent_id',
      [[sharedAgent.id, privateAgent.id]],
    );
    const byAgent = new Map(rows.map((r) => [r.agent_id, r]));
    assert.equal(byAgent.get(sharedAgent.id)?.n, 4);
    assert.equal(byAgent.get(sharedAgent.id)?.excl, 0);
    assert.equal(byAgent.get(privateAgent.id)?.n, 1);
    assert.equal(byAgent.get(privateAgent.id)?.excl, 1);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 5);
  });

  test('mixed shared and private purchases on one agent: either one private or up to 4 shared', async () => {
    const agent = await buildAgent(db, { nodeId });
    const attempts = Array.from({ length: 30 }, (_, i) =>
      service.createLease({ userId: `m${i}`, agentId: agent.id, exc: i % 3 === 0 }),
    );
    await Promise.allSettled(attempts);
    const [row] = await db.query<{ n: number; excl: number }>(
      'SELECT count(*)::int AS n, count(*) FILTER (WHERE exc)::int AS excl FROM leases WHERE agent_id = $1',
      [agent.id],
    );
    assert.ok(row);
    assert.ok(
      (row.excl === 1 && row.n === 1) || (row.excl === 0 && row.n >= 1 && row.n <= 4),
      JSON.stringify(row),
    );
  });
});

describe('endLease, setWhitelist', () => {
  test('setWhitelist stores IPv4 and CIDR entries and names a bad entry', async () => {
    const agent = await buildAgent(db, { nodeId });
    const lease = await service.createLease({ userId: 'w', agentId: agent.id, exc: false });
    await service.setWhitelist(lease.id, ' 10.0.0.1, 192.168.0.0/24 ,,');
    const [row] = await db.query<{ whitelist: string[] }>('SELECT whitelist FROM leases WHERE id = $1', [
      lease.id,
    ]);
    assert.deepEqual(row?.whitelist, ['10.0.0.1', '192.168.0.0/24']);
    await assert.rejects(service.setWhitelist(lease.id, '10.0.0.1,256.1.1.1'), (e) => {
      return isAppError(e) && e.code === 'VALIDATION_FAILED' && e.userMessage.includes('256.1.1.1');
    });
    await assert.rejects(
      service.setWhitelist('zzzz-0000', '10.0.0.1'),
      (e) => isAppError(e) && e.code === 'NOT_FOUND',
    );
  });

  test('allocateAuthPort gives distinct ports per lease on a node, keeps a lease port, and reports a full node', async () => {
    const small = await buildNode(db, { authPortMin: 31000, authPortMax: 31001 });
    const agent = await buildAgent(db, { nodeId: small.id });
    const a = await service.createLease({ userId: 'x', agentId: agent.id, exc: false });
    const b = await service.createLease({ userId: 'y', agentId: agent.id, exc: false });
    const c = await service.createLease({ userId: 'z', agentId: agent.id, exc: false });
    const pa = await service.allocateAuthPort(a.id, '10.0.0.1');
    const pb = await service.allocateAuthPort(b.id, []);
    assert.deepEqual([pa.port, pb.port].sort(), [31000, 31001]);
    assert.equal(pa.node, '127.0.0.1');
    assert.equal(pa.whitelist, '10.0.0.1');
    const again = await service.allocateAuthPort(a.id, '10.0.0.2,10.0.0.3');
    assert.equal(again.port, pa.port);
    assert.equal(again.whitelist, '10.0.0.2,10.0.0.3');
    await assert.rejects(
      service.allocateAuthPort(c.id, ''),
      (e) => isAppError(e) && e.code === 'UNAVAILABLE',
    );
    await service.endLease(a.id);
    const pc = await service.allocateAuthPort(c.id, '');
    assert.equal(pc.port, pa.port);
  });
});
