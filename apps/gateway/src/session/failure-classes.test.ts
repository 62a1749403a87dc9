/**
 * Who a failed request is charged to, on real sockets: a gateway with in-memory seams and real
 * agents on loopback. Only the agent's failures (no tunnel, no answer in time, its own error) count
 * toward the auto-refund; a target the customer chose, the agent's policy and the customer's own
 * stream share never do. And one sharer filling its share of the agent's streams leaves the others
 * theirs (docs/gateway.md "Failure classes", "Stream shares").
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { waitFor } from '@pm/testkit';
import type { LeaseEntry } from '../policy/types.ts';
import { type SocksClientError, socksConnect } from '../protocol/client.ts';
import { buildLease, startTestNetwork, type TestNetwork } from './harness.testkit.ts';

/** A loopback server that accepts connections and holds them open until closed. */
async function startHoldingTarget(): Promise<{ port: number; held: () => number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    held: () => sockets.size,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A loopback port nothing listens on. */
async function refusingPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

const via = (network: TestNetwork, lease: LeaseEntry, host: string, port: number) =>
  socksConnect({
    proxyHost: '127.0.0.1',
    proxyPort: network.gateway.socksPorts[0]!,
    user: lease.user,
    pwd: lease.pwd,
    host,
    port,
    timeoutMs: 5000,
  });

/** The reply code a failed CONNECT got. */
async function replyOf(connecting: Promise<net.Socket>): Promise<number | undefined> {
  try {
    (await connecting).destroy();
    return 0;
  } catch (e) {
    return (e as SocksClientError).reply;
  }
}

describe('failure classes', () => {
  let network: TestNetwork;
  let holding: Awaited<ReturnType<typeof startHoldingTarget>>;

  before(async () => {
    holding = await startHoldingTarget();
    network = await startTestNetwork({
      keys: { 'key-a': 'agent-a', 'key-slow': 'agent-slow', 'key-silent': 'agent-silent' },
      tls: false,
      gateway: { openTimeoutMs: 1500 },
    });
    await network.addAgent('key-a', { restrictTo: ['127.0.0.0/8', '::1', '0.0.0.0/8'] });
  });
  after(async () => {
    await network.close();
    await holding.close();
  });

  test("a policy-blocked, refusing or unresolvable target is a failure, never the agent's", async () => {
    const lease = buildLease('agent-a');
    network.directory.upsert(lease);
    const refusing = await refusingPort();
    // Hundreds of CONNECTs the customer makes fail on purpose: 0.0.0.0:1 (the agent's policy), a
    // closed port, a name that cannot resolve, and a name with a NUL byte (Node throws on it).
    const replies = new Map<number | undefined, number>();
    for (let i = 0; i < 60; i++) {
      const [host, port] = [
        ['0.0.0.0', 1],
        ['127.0.0.1', refusing],
        ['no-such-name.invalid', 80],
        ['a\0b', 80],
      ][i % 4] as [string, number];
      const code = await replyOf(via(network, lease, host, port));
      replies.set(code, (replies.get(code) ?? 0) + 1);
    }
    assert.deepEqual(Object.fromEntries(replies), { 2: 15, 4: 30, 5: 15 });
    const c = network.meter.get(lease.leaseId);
    assert.deepEqual(
      { reqs: c.reqs, fails: c.fails, agentFails: c.agentFails },
      { reqs: 60, fails: 60, agentFails: 0 },
    );
    // The agent is still up and serving after all that.
    assert.equal(await replyOf(via(network, lease, '127.0.0.1', holding.port)), 0);
  });

  test("no tunnel for the agent, and an OPEN unanswered by the gateway's deadline, are the agent's", async () => {
    const offline = buildLease('agent-nobody');
    network.directory.upsert(offline);
    for (let i = 0; i < 3; i++)
      assert.equal(await replyOf(via(network, offline, '127.0.0.1', holding.port)), 1);
    assert.equal(network.meter.get(offline.leaseId).agentFails, 3);

    // An agent that gives itself longer than the gateway waits, with a name lookup that never ends.
    await network.addAgent('key-silent', { connectTimeoutMs: 30_000, lookup: () => {} });
    const silent = buildLease('agent-silent');
    network.directory.upsert(silent);
    assert.equal(await replyOf(via(network, silent, 'hangs.example', 80)), 6);
    assert.deepEqual(network.meter.get(silent.leaseId).agentFails, 1);
  });

  test("the agent bounds a name lookup by its own connect timeout: the target's timeout, not the agent's", async () => {
    await network.addAgent('key-slow', { connectTimeoutMs: 300, lookup: () => {} });
    const lease = buildLease('agent-slow');
    network.directory.upsert(lease);
    const started = Date.now();
    assert.equal(await replyOf(via(network, lease, 'hangs.example', 80)), 6);
    assert.ok(Date.now() - started < 1400, 'answered by the agent, before the gateway gave up');
    const c = network.meter.get(lease.leaseId);
    assert.deepEqual({ fails: c.fails, agentFails: c.agentFails }, { fails: 1, agentFails: 0 });
  });

  test("a relayed connection cut by the tunnel dying is the agent's failure", async () => {
    const lease = buildLease('agent-a');
    network.directory.upsert(lease);
    const socket = await via(network, lease, '127.0.0.1', holding.port);
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.on('error', () => {});
    network.gateway.tunnel('agent-a')!.destroy(new Error('test: tunnel cut'));
    await closed;
    await waitFor(() => network.meter.get(lease.leaseId).agentFails === 1, { timeoutMs: 2000 });
    await waitFor(() => network.gateway.agentsOnline().includes('agent-a'), {
      timeoutMs: 5000,
      what: 'agent back',
    });
  });
});

describe('stream shares', () => {
  let network: TestNetwork;
  let holding: Awaited<ReturnType<typeof startHoldingTarget>>;

  before(async () => {
    holding = await startHoldingTarget();
    network = await startTestNetwork({
      keys: { 'key-s': 'agent-s', 'key-small': 'agent-small' },
      tls: false,
      gateway: { maxStreamsPerAgent: 8 },
    });
    await network.addAgent('key-s');
    // This agent serves 4 streams at once and says so in its HELLO.
    await network.addAgent('key-small', { maxStreams: 4 });
  });
  after(async () => {
    await network.close();
    await holding.close();
  });

  /** Opens connections through `lease` until one is refused (at most `max`); the open ones stay. */
  async function fill(
    lease: LeaseEntry,
    max: number,
  ): Promise<{ open: net.Socket[]; refusal: number | undefined }> {
    const open: net.Socket[] = [];
    for (let i = 0; i < max; i++) {
      try {
        open.push(await via(network, lease, '127.0.0.1', holding.port));
      } catch (e) {
        return { open, refusal: (e as SocksClientError).reply };
      }
    }
    return { open, refusal: undefined };
  }

  test("one sharer holding its whole share leaves the other sharers theirs; its refusals are not the agent's", async () => {
    const [a, b, c, d] = [1, 2, 3, 4].map(() => buildLease('agent-s'));
    for (const l of [a, b, c, d]) network.directory.upsert(l!);
    const hog = await fill(a!, 20);
    // 8 streams, 4 sharers: 2 each, however long the first one holds them.
    assert.equal(hog.open.length, 2);
    assert.equal(hog.refusal, 1);
    const mine = await Promise.all([b, c, d].map((l) => fill(l!, 2)));
    for (const m of mine)
      assert.deepEqual({ open: m.open.length, refusal: m.refusal }, { open: 2, refusal: undefined });
    assert.ok(
      await waitFor(() => holding.held() >= 8, { timeoutMs: 2000 }),
      `target holds ${holding.held()}`,
    );
    const hogCounts = network.meter.get(a!.leaseId);
    assert.deepEqual(
      { reqs: hogCounts.reqs, fails: hogCounts.fails, agentFails: hogCounts.agentFails },
      {
        reqs: 3,
        fails: 1,
        agentFails: 0,
      },
    );
    for (const l of [b, c, d]) assert.equal(network.meter.get(l!.leaseId).fails, 0);
    for (const s of [...hog.open, ...mine.flatMap((m) => m.open)]) s.destroy();
    await waitFor(() => network.gateway.openConnections() === 0, { timeoutMs: 5000 });
  });

  test('a private lease may use the whole limit', async () => {
    const lease = buildLease('agent-s', { exclusive: true });
    network.directory.upsert(lease);
    const all = await fill(lease, 9);
    assert.deepEqual({ open: all.open.length, refusal: all.refusal }, { open: 8, refusal: 1 });
    assert.equal(network.meter.get(lease.leaseId).agentFails, 0);
    for (const s of all.open) s.destroy();
    await waitFor(() => network.gateway.openConnections() === 0, { timeoutMs: 5000 });
  });

  test("the limit is the lower of the gateway's and the agent's HELLO: the agent never refuses for capacity", async () => {
    const [a, b] = [1, 2].map(() => buildLease('agent-small'));
    for (const l of [a, b]) network.directory.upsert(l!);
    // 4 streams on this agent, 4 sharers' parts: 1 each.
    const first = await fill(a!, 3);
    const second = await fill(b!, 3);
    assert.deepEqual([first.open.length, second.open.length], [1, 1]);
    assert.equal(network.meter.get(a!.leaseId).agentFails + network.meter.get(b!.leaseId).agentFails, 0);
    for (const s of [...first.open, ...second.open]) s.destroy();
  });
});
