/**
 * A package whose refund is being decided relays nothing (`package-flush.ts`): a pending request
 * for its exact counters freezes it before they are reported, so a flooding connection is cut at
 * its next chunk and the counters the node stamps are final; new connections are refused until
 * the server clears the request, or until the freeze's expiry (30 s after the request, by the
 * database's clock); a LISTEN reconnect catches up both ways. Real agent, sockets and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AgentHandle } from '@pm/agent';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import { createOverrideGeo } from '../geo/geo.ts';
import { makeSelfSignedCert } from '../tunnel/self-signed.ts';
import { insertPackage, type TestPackage } from './network.testkit.ts';
import { startTestNode, type TestNode } from './node.testkit.ts';
import {
  connectAgent,
  packageCounters,
  pullThrough,
  type RawTarget,
  startRawTarget,
} from './package.testkit.ts';
import { FREEZE_EXPIRY_MS } from './package-flush.ts';

const NY = { cc: 'US', reg: 'New York', city: 'New York', zip: '10001', isp: 'Example Cable', mob: false };
const geo = createOverrideGeo({ '192.0.2.61': NY });
const tls = makeSelfSignedCert();

let db: TestDatabase;
let node: TestNode;
let source: RawTarget;
let hold: RawTarget;
let agent: AgentHandle;

before(async () => {
  db = await createTestDatabase('package_freeze');
  source = await startRawTarget('source');
  hold = await startRawTarget({ hold: 1000 });
  node = await startTestNode(db, 'n1', { geo, tls, served: true });
  agent = (await connectAgent(db, node, tls, '192.0.2.61', 'wifi')).agent;
  await node.plane.packages.reload();
});

after(async () => {
  await agent?.close();
  await node?.gateway.close();
  await node?.plane.close();
  await source?.close();
  await hold?.close();
  await db?.drop();
});

async function packageOn(unlimited = false): Promise<TestPackage> {
  const p = await insertPackage(db, 'n1');
  if (unlimited) {
    await db.query("UPDATE port_packages SET traffic_type = 'unlimit' WHERE id = $1", [p.id]);
    // Loaded as unlimited (a fresh budget revokes the connections of the limited one).
    await node.plane.packages.reload();
  }
  await waitFor(() => node.gateway.authPorts().includes(p.ports[0]!), { timeoutMs: 3000 });
  return p;
}

/** Sets (`at`: SQL for the stamp) or clears (null) the package's request, as the refund does. */
const request = (id: string, at: string | null) =>
  db.query(`UPDATE port_packages SET flush_requested_at = ${at ?? 'NULL'} WHERE id = $1`, [id]);
const stamped = async (id: string) =>
  (
    await db.query<{ ok: boolean }>(
      'SELECT coalesce(stats_flushed_at >= flush_requested_at, false) AS ok FROM port_packages WHERE id = $1',
      [id],
    )
  )[0]?.ok === true;
/** Whether a new connection through the package relays its first bytes. */
async function serves(p: TestPackage): Promise<boolean> {
  try {
    const c = await pullThrough(p.ports[0]!, p.login, p.password, hold.port);
    const got = await waitFor(() => c.received() === 1000, { timeoutMs: 1000 });
    c.socket.destroy();
    return got;
  } catch {
    return false;
  }
}
const servesWithin = (p: TestPackage, ms: number) => waitFor(() => serves(p), { timeoutMs: ms });

describe('a refund being decided freezes the package', () => {
  test('a flooding connection is cut at its next chunk, the stamped counters are final, new ones refused; a cleared request serves again', async () => {
    const p = await packageOn();
    const flood = await pullThrough(p.ports[0]!, p.login, p.password, source.port);
    await waitFor(() => flood.received() > 4 * 1024 * 1024, { timeoutMs: 5000, what: 'flooding' });
    await request(p.id, 'clock_timestamp()');
    await waitFor(() => stamped(p.id), { timeoutMs: 2000, what: 'answered' });
    const atStamp = (await packageCounters(db, p.id)).down;
    const end = await Promise.race([flood.ended, new Promise((r) => setTimeout(() => r(null), 1000))]);
    assert.ok(end, 'the open connection is cut within 1 s');
    await waitFor(async () => (await packageCounters(db, p.id)).down === flood.received(), {
      timeoutMs: 3000,
      what: 'its last report reaches the database',
    });
    const final = (await packageCounters(db, p.id)).down;
    assert.ok(atStamp > 0);
    assert.equal(final, atStamp, 'no byte relayed after the counters were reported');
    assert.equal(final, flood.received(), 'what the customer got, exactly');
    assert.equal(await serves(p), false, 'new connections refused while the refund is decided');
    await request(p.id, null);
    assert.ok(await servesWithin(p, 1000), 'a refused refund: the package serves again within 1 s');
  });

  test('the unlimited port freezes too', async () => {
    const p = await packageOn(true);
    assert.equal(await serves(p), true);
    await request(p.id, 'clock_timestamp()');
    await waitFor(() => stamped(p.id), { timeoutMs: 2000 });
    assert.equal(await serves(p), false);
    await request(p.id, null);
    assert.ok(await servesWithin(p, 1000));
  });

  test('a request nobody clears ends at its expiry, counted from the request; a stale one freezes nothing', async () => {
    const p = await packageOn();
    const ago = FREEZE_EXPIRY_MS - 1500;
    await request(p.id, `clock_timestamp() - interval '${ago} milliseconds'`);
    await waitFor(() => stamped(p.id), { timeoutMs: 2000 });
    assert.equal(await serves(p), false, 'frozen for the rest of the expiry');
    const t0 = Date.now();
    assert.ok(await servesWithin(p, 3000), 'serves once the expiry passed');
    assert.ok(Date.now() - t0 <= 2500, `after ${Date.now() - t0} ms`);
    const q = await packageOn();
    await request(q.id, `clock_timestamp() - interval '${FREEZE_EXPIRY_MS + 1000} milliseconds'`);
    await waitFor(() => stamped(q.id), { timeoutMs: 2000, what: 'still answered' });
    assert.equal(await serves(q), true, 'a server long gone freezes nothing');
  });
});

describe('after a LISTEN reconnect', () => {
  /** Ends the node's LISTEN connection for package_flush; it reconnects 250 ms later. */
  const dropListen = () =>
    db.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND query = 'LISTEN "package_flush"'`,
    );

  test('a request missed meanwhile freezes and is answered; a clearing missed meanwhile unfreezes', async () => {
    const p = await packageOn();
    await dropListen();
    await request(p.id, 'clock_timestamp()');
    await waitFor(() => stamped(p.id), { timeoutMs: 5000, what: 'answered by the catch-up' });
    assert.equal(await serves(p), false, 'frozen');
    await dropListen();
    await request(p.id, null);
    assert.ok(await servesWithin(p, 5000), 'the catch-up ends the freeze');
  });
});
