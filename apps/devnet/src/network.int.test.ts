import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { STATIC_CHIP_COUNTRIES } from '@pm/contracts';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { lookupPostal } from '@pm/geo';
import { cents } from '@pm/money';
import { createServices } from '@pm/server';
import { waitFor } from '@pm/testkit';
import { demoIdentities, demoStaticIdentities } from './agents.ts';
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

// The static (datacenter) demo agents run on top of the four residential ones.
const AGENTS = 4 + demoStaticIdentities().length;

test('every demo agent dials in and is online in the database', async () => {
  assert.equal(net.agentsOnline().length, AGENTS);
  // The registry writes presence off the data path: poll for it.
  const rows = await waitFor(
    async () => {
      const r = await db.query<{ online: boolean; cc: string }>('SELECT online, cc FROM agents');
      return r.length === AGENTS && r.every((a) => a.online) && r;
    },
    { timeoutMs: 5000, intervalMs: 100, what: 'every demo agent online in the database' },
  );
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
  const first = await waitFor(() => curl(2080).catch(() => null), {
    timeoutMs: 2000,
    intervalMs: 100,
    what: 'the lease usable within 2 s',
  });
  assert.equal(first.stdout, 'hello through the demo network');
  for (const offset of [3080, 4080, 5080]) {
    assert.equal((await curl(offset)).stdout, 'hello through the demo network');
  }
  // The meter flushes at least every 5 s.
  const reqs = await waitFor(
    async () => {
      const n = (await leases.getLease(lease.id)).stats.reqs;
      return n >= 4 && n;
    },
    { timeoutMs: 8000, intervalMs: 250, what: 'the four requests metered' },
  );
  assert.equal(reqs, 4);
});

test('static demo agents are real agents in every static quick country, kept where they are, and on sale', async () => {
  const statics = demoStaticIdentities();
  assert.equal(new Set(statics.map((d) => d.ip)).size, statics.length);
  const residential = new Set(demoIdentities(200).map((d) => d.ip));
  assert.ok(
    statics.every((d) => d.static && !residential.has(d.ip)),
    'distinct from every residential address',
  );
  assert.equal(statics.filter((d) => d.loc.cc === 'US').length, 2);
  for (const d of statics) {
    // On the postal centre where the postal data has the country (GB, NL, JP have none).
    const centre = await lookupPostal(d.loc.cc, d.loc.zip);
    if (centre) assert.deepEqual(centre, { lat: d.loc.lat, lon: d.loc.lon }, d.id);
  }
  const { staticShop } = createServices(db);
  for (const cc of STATIC_CHIP_COUNTRIES) {
    const mine = statics.filter((d) => d.loc.cc === cc);
    assert.ok(mine.length >= 1, cc);
    // Online on the node with the location the gateway's map gives them (not lost on connect).
    const page = await waitFor(
      async () => {
        const p = await staticShop.listStatic({ cc, cursor: 0, limit: 10 });
        return p.total >= mine.length && p;
      },
      { timeoutMs: 5000, intervalMs: 100, what: `the static agents of ${cc} on sale` },
    );
    assert.deepEqual(
      page.list.map((a) => [a.id, a.ip, a.loc.city, a.loc.isp]).sort(),
      mine.map((d) => [d.id, d.ip, d.loc.city, d.loc.isp]).sort(),
      cc,
    );
    assert.ok(page.list.every((a) => a.priceC > 0));
  }
  for (const cc of ['NL', 'JP'])
    assert.equal((await staticShop.listStatic({ cc, cursor: 0, limit: 10 })).total, 1, cc);
  // Not in the residential shop.
  const rows = await db.query<{ id: string }>('SELECT id FROM agents WHERE is_static ORDER BY id');
  assert.deepEqual(
    rows.map((r) => r.id),
    statics.map((d) => d.id),
  );
});

test('a static lease bought through the shop relays real traffic', async () => {
  const { staticShop, ledger, accounts } = createServices(db);
  await accounts.ensureAccount({ userId: 'u-static', email: 'static@example.com', emailVerified: true });
  const agent = demoStaticIdentities().find((d) => d.loc.cc === 'DE')!;
  const listed = (await staticShop.listStatic({ cc: 'DE', cursor: 0, limit: 10 })).list.find(
    (a) => a.id === agent.id,
  )!;
  await ledger.move({ userId: 'u-static', type: 'deposit', amountC: cents(10_000), idemKey: 'static-test' });
  const lease = await staticShop.leaseStatic('u-static', { agentID: agent.id, expPriceC: listed.priceC });
  assert.ok(lease.socks);
  const { user, pwd, port } = lease.socks;
  const curl = () =>
    run('curl', [
      '-sS',
      '--max-time',
      '10',
      '--socks5-hostname',
      `${user}:${pwd}@127.0.0.1:${port + 2080}`,
      targetUrl,
    ]);
  const first = await waitFor(() => curl().catch(() => null), {
    timeoutMs: 2000,
    intervalMs: 100,
    what: 'the static lease usable within 2 s',
  });
  assert.equal(first.stdout, 'hello through the demo network');
});
