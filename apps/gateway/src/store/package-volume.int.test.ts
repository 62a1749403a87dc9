/**
 * A traffic package's volume held on the relay path (docs/gateway.md, "Volume on the relay path"):
 * eight parallel downloads through a 1 Gb package with 64 MiB left are cut at the volume, the
 * meter records every byte relayed, a reactivation brings a fresh budget, and an upload spends the
 * same volume. Real agents, sockets and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AgentHandle } from '@pm/agent';
import { BYTES_PER_GB } from '@pm/contracts';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import { createOverrideGeo } from '../geo/geo.ts';
import { makeSelfSignedCert } from '../tunnel/self-signed.ts';
import { HTTP_OFFSET, insertPackage, type TestPackage } from './network.testkit.ts';
import { startTestNode, type TestNode } from './node.testkit.ts';
import {
  connectAgent,
  packageCounters,
  pullThrough,
  type RawTarget,
  startRawTarget,
} from './package.testkit.ts';

const MiB = 1024 * 1024;
const LEFT = 64 * MiB;
const PARALLEL = 8;
const RUNS = 3;
const NY = { cc: 'US', reg: 'New York', city: 'New York', zip: '10001', isp: 'Example Cable', mob: false };
const geo = createOverrideGeo({ '192.0.2.71': NY, '192.0.2.72': NY });
const tls = makeSelfSignedCert();

let db: TestDatabase;
let node: TestNode;
let source: RawTarget;
let sink: RawTarget;
const agents: AgentHandle[] = [];

before(async () => {
  db = await createTestDatabase('package_volume');
  source = await startRawTarget('source');
  sink = await startRawTarget('sink');
  node = await startTestNode(db, 'n1', {
    geo,
    tls,
    served: true,
    gateway: { httpPorts: [0], httpPortOffset: HTTP_OFFSET },
  });
  for (const ip of ['192.0.2.71', '192.0.2.72'])
    agents.push((await connectAgent(db, node, tls, ip, 'wifi')).agent);
  await node.plane.packages.reload();
});

after(async () => {
  for (const a of agents) await a.close();
  await node?.gateway.close();
  await node?.plane.close();
  await source?.close();
  await sink?.close();
  await db?.drop();
});

/** Sets the package's counters as if `LEFT` bytes were left (a reactivation, when `generation` rises too). */
async function leaveOnly(p: TestPackage, left: number, reactivate = false): Promise<void> {
  await db.query(
    `UPDATE port_packages SET upload = 0, download = $2, requests = 0, errors = 0, status = 'active',
       suspend_reason = NULL, generation = generation + $3 WHERE id = $1`,
    [p.id, BYTES_PER_GB - left, reactivate ? 1 : 0],
  );
  await node.plane.packages.reload();
}

const statusOf = async (p: TestPackage) => (await packageCounters(db, p.id)).status;

describe('the volume on the relay path', () => {
  test(`${PARALLEL} parallel downloads stop at the volume; every byte relayed is metered; a reactivation refills`, {
    timeout: 120_000,
  }, async () => {
    const p = await insertPackage(db, 'n1', { gb: 1 });
    await waitFor(() => node.gateway.authPorts().includes(p.ports[0]!), { timeoutMs: 3000 });
    const overruns: number[] = [];
    const lost: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      await leaveOnly(p, LEFT, run > 0);
      const pulls = await Promise.all(
        Array.from({ length: PARALLEL }, () => pullThrough(p.ports[0]!, p.login, p.password, source.port)),
      );
      const ends = await Promise.all(pulls.map((x) => x.ended));
      assert.ok(
        ends.every((e) => e.reset),
        'every download is cut (reset), none ends as if complete',
      );
      const received = pulls.reduce((n, x) => n + x.received(), 0);
      // The meter's flush crosses the volume: the package is suspended and its port refuses.
      await waitFor(async () => (await statusOf(p)) === 'suspend', {
        timeoutMs: 5000,
        what: `run ${run}: suspended at the volume`,
      });
      const c = await packageCounters(db, p.id);
      const relayed = c.up + c.down - (BYTES_PER_GB - LEFT);
      assert.ok(relayed <= LEFT + PARALLEL * MiB, `run ${run}: ${relayed} bytes relayed for ${LEFT}`);
      assert.equal(c.up + c.down, BYTES_PER_GB, `run ${run}: the counters stop at the volume`);
      assert.ok(received <= c.down, `run ${run}: the clients received ${received}, metered ${c.down}`);
      overruns.push((relayed - LEFT) / PARALLEL);
      lost.push(c.down - (BYTES_PER_GB - LEFT) - received);
      assert.ok(
        await waitFor(() => !node.gateway.authPorts().includes(p.ports[0]!), { timeoutMs: 5000 }),
        'the port closes',
      );
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    // What the clients did not get of the bytes metered: written to their sockets when the reset came.
    for (const l of lost) assert.ok(l <= PARALLEL * MiB, `metered but lost in the reset: ${l}`);
    console.log(
      `volume overrun per connection: max ${Math.max(...overruns)} B, mean ${mean(overruns)} B over ${RUNS} runs; ` +
        `metered but not received (all ${PARALLEL} connections): max ${Math.max(...lost)} B, mean ${Math.round(mean(lost))} B`,
    );
  });

  test('an upload spends the same volume and is cut at it', { timeout: 60_000 }, async () => {
    const p = await insertPackage(db, 'n1', { gb: 1 });
    await waitFor(() => node.gateway.authPorts().includes(p.ports[0]!), { timeoutMs: 3000 });
    await leaveOnly(p, 4 * MiB);
    const before = sink.received();
    const push = await pullThrough(p.ports[0]!, p.login, p.password, sink.port);
    const block = Buffer.alloc(64 * 1024, 1);
    const write = () => {
      while (!push.socket.destroyed && push.socket.write(block));
    };
    push.socket.on('drain', write);
    write();
    assert.equal((await push.ended).reset, true, 'the upload is cut');
    await waitFor(async () => (await statusOf(p)) === 'suspend', {
      timeoutMs: 5000,
      what: 'suspended at the volume',
    });
    const c = await packageCounters(db, p.id);
    assert.equal(c.up + c.down, BYTES_PER_GB, 'the counters stop at the volume');
    assert.equal(c.up, 4 * MiB);
    assert.ok(sink.received() - before <= 4 * MiB, 'the target got no more than the volume');
  });

  test('a package at its volume refuses a new connection before relaying anything', async () => {
    const p = await insertPackage(db, 'n1', { gb: 1 });
    await waitFor(() => node.gateway.authPorts().includes(p.ports[0]!), { timeoutMs: 3000 });
    // The database says it is spent but still active (as between the flush and the status change).
    await leaveOnly(p, 0);
    await assert.rejects(
      pullThrough(p.ports[0]!, p.login, p.password, source.port),
      (e: { reply?: number }) => {
        assert.equal(e.reply, 0x02, 'SOCKS "not allowed"');
        return true;
      },
    );
    const c = await packageCounters(db, p.id);
    assert.equal(c.up + c.down, BYTES_PER_GB);
  });
});
