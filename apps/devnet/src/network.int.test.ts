import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { createServices } from '@pm/server';
import { demoIdentities } from './agents.ts';
import { type DemoNetwork, startDemoNetwork } from './network.ts';

const run = promisify(execFile);
let db: TestDatabase;
let net: DemoNetwork;
let target: ReturnType<typeof createServer>;
let targetUrl: string;

// Hooks get a bound too: a stuck start or shutdown must fail the file, not hang the run.
before(
  async () => {
    db = await createTestDatabase('demo_network');
    target = createServer((_req, res) => res.end('hello through the demo network'));
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
    // The SOCKS ports are base+2080..5080 (fixed offsets), so they cannot all be port 0. The base is
    // drawn below the ephemeral range (32768+) so client sockets never hold them; a clash with
    // another test's listener is retried with another base.
    for (let attempt = 1; ; attempt++) {
      const base = 21_000 + Math.floor(Math.random() * 5000);
      try {
        net = await startDemoNetwork({
          db,
          host: '127.0.0.1',
          publicHost: 'localhost',
          nodeId: 'gw-test',
          socksBasePort: base,
          tunnelPort: 0,
          authPortMin: base - 4000,
          authPortMax: base - 3900,
          agentCount: 4,
          probeIntervalMs: 0,
        });
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 5) throw e;
      }
    }
  },
  { timeout: 60_000 },
);

after(
  async () => {
    await net?.close();
    target?.close();
    await db?.drop();
  },
  { timeout: 30_000 },
);

test('every demo agent dials in and is online in the database', async () => {
  assert.equal(net.agentsOnline().length, 4);
  // The registry writes presence off the data path: poll for it.
  const deadline = Date.now() + 5000;
  let rows: { online: boolean; cc: string }[] = [];
  while (Date.now() < deadline) {
    rows = await db.query<{ online: boolean; cc: string }>('SELECT online, cc FROM agents');
    if (rows.length === 4 && rows.every((r) => r.online)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(rows.length, 4);
  assert.ok(rows.every((r) => r.online));
  assert.ok(rows.every((r) => /^[A-Z]{2}$/.test(r.cc)));
});

test('a lease on a demo agent relays real traffic with curl on each of its four ports, metered', async () => {
  const agentId = demoIdentities(4)[0]!.id;
  const { leases } = createServices(db);
  const lease = await leases.createLease({ userId: 'u-demo', agentId, exc: true });
  assert.ok(lease.socks, 'the lease has SOCKS credentials');
  const { user, pwd, port } = lease.socks;
  const curl = (offset: number) =>
    run('curl', [
      '-sS',
      '--max-time',
      '10',
      '--socks5-hostname',
      `${user}:${pwd}@127.0.0.1:${port + offset}`,
      targetUrl,
    ]);
  // The gateway learns the new lease through NOTIFY: it must work within 2 s of the purchase.
  const learnedBy = Date.now() + 2000;
  let first = await curl(2080).catch((e: Error) => e);
  while (first instanceof Error && Date.now() < learnedBy) {
    await new Promise((r) => setTimeout(r, 100));
    first = await curl(2080).catch((e: Error) => e);
  }
  assert.ok(!(first instanceof Error), `not usable within 2 s: ${String(first)}`);
  assert.equal(first.stdout, 'hello through the demo network');
  for (const offset of [3080, 4080, 5080]) {
    assert.equal((await curl(offset)).stdout, 'hello through the demo network');
  }
  // The meter flushes at least every 5 s.
  const deadline = Date.now() + 8000;
  let reqs = 0;
  while (Date.now() < deadline) {
    reqs = (await leases.getLease(lease.id)).stats.reqs;
    if (reqs >= 4) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.equal(reqs, 4);
});
