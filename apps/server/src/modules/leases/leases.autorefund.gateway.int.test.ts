/**
 * The auto-refund against a hostile customer, on real traffic: the API, a gateway node with its
 * PostgreSQL control plane and meter, real agents on loopback. Failures the customer causes on
 * purpose (0.0.0.0:1, a port that refuses) never refund; an agent that really dies does, within the
 * last hour only; a static lease never does (apps/server/README.md, "Auto-refund").
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { ENDPOINTS, type TLease, ZLease, ZLeaseTrafficResponse } from '@pm/contracts';
import { curl } from '@pm/gateway/session/harness.testkit';
import { waitFor } from '@pm/testkit';
import { createTestApp, type TestApp } from '../../test/app.ts';
import {
  closeServer,
  curlRetrying,
  refusingPort as findRefusingPort,
  type GatewayStack,
  listenLoopback,
  startGatewayStack,
} from '../../test/gateway-stack.ts';
import { booksOf, buildCustomer, postLease, setFlatPrices } from '../../test/market.ts';
import { callRoute } from '../../test/route.ts';
import { createLedgerService } from '../ledger/ledger.service.ts';
import { createLeaseService } from './leases.service.ts';
import { createSettleService } from './leases.settle.ts';

let t: TestApp;
let stack: GatewayStack;
let files: http.Server;
let filesPort: number;
let refusingPort: number;
let settle: ReturnType<typeof createSettleService>;

before(async () => {
  t = await createTestApp('lease_autorefund_gateway', { payments: false, settings: { shopCacheMs: 0 } });
  await setFlatPrices(t, 500, 200);
  files = http.createServer((_req, res) => res.end('hello'));
  filesPort = await listenLoopback(files);
  refusingPort = await findRefusingPort();
  stack = await startGatewayStack(t.db, { nodeId: 'gw-autorefund' });
  settle = createSettleService({
    db: t.db.db,
    ledger: createLedgerService({ db: t.db.db }),
    leases: createLeaseService({ db: t.db.db }),
  });
});

after(async () => {
  await stack?.close();
  await closeServer(files);
  await t?.close();
});

async function buy(ip: string) {
  const who = await buildCustomer(t, 5000);
  const agentId = await stack.connectAgent(ip);
  const res = await postLease(t, who, { agentID: agentId, expPriceC: 500, exc: true });
  assert.equal(res.statusCode, 201, res.body);
  return { lease: ZLease.parse(res.json()), agentId, who };
}

const proxyOf = (lease: TLease) =>
  `${lease.socks.user}:${lease.socks.pwd}@${lease.socks.ip}:${lease.socks.ports[0]}`;

/** `n` requests through the lease to `url`, 25 at a time; resolves with how many succeeded. */
async function requests(lease: TLease, url: string, n: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < n; i += 25) {
    const batch = Array.from({ length: Math.min(25, n - i) }, () =>
      curl(['--socks5-hostname', proxyOf(lease), '-o', '/dev/null', url], 10),
    );
    ok += (await Promise.all(batch)).filter((r) => r.code === 0).length;
  }
  return ok;
}

/** The lease's totals and hour rows, once the meter has flushed. */
async function counters(leaseId: string) {
  await stack.plane.meter.flush();
  const [total] = await t.db.query<{ reqs: string; fails: string }>(
    'SELECT reqs, fails FROM leases WHERE id = $1',
    [leaseId],
  );
  const [hours] = await t.db.query<{ reqs: string; fails: string; agent_fails: string }>(
    `SELECT coalesce(sum(reqs), 0) AS reqs, coalesce(sum(fails), 0) AS fails,
            coalesce(sum(agent_fails), 0) AS agent_fails
     FROM lease_traffic_hourly WHERE lease_id = $1`,
    [leaseId],
  );
  return {
    reqs: Number(total!.reqs),
    fails: Number(total!.fails),
    hourReqs: Number(hours!.reqs),
    hourFails: Number(hours!.fails),
    agentFails: Number(hours!.agent_fails),
  };
}

async function takeOffline(agentId: string): Promise<void> {
  // The finished requests' connections close first: one still open when the tunnel dies fails with it.
  await waitFor(() => stack.gateway.openConnections() === 0, { timeoutMs: 2500, what: 'connections closed' });
  await stack.closeAgent(agentId);
  await waitFor(() => !stack.gateway.agentsOnline().includes(agentId), {
    timeoutMs: 5000,
    what: `agent ${agentId} disconnected`,
  });
}

const endReason = async (leaseId: string) =>
  (
    await t.db.query<{ end_reason: string | null }>('SELECT end_reason FROM leases WHERE id = $1', [leaseId])
  )[0]!.end_reason;

test('a customer who uses the proxy, then sends hundreds of CONNECTs to 0.0.0.0:1 and a refusing port, gets no refund', {
  timeout: 180_000,
}, async () => {
  const { lease, who } = await buy('192.0.2.61');
  assert.equal(
    (await curlRetrying(['--socks5-hostname', proxyOf(lease), `http://127.0.0.1:${filesPort}/`], 10)).code,
    0,
  );
  assert.equal(await requests(lease, `http://127.0.0.1:${filesPort}/`, 9), 9);
  assert.equal(await requests(lease, 'http://0.0.0.0:1/', 150), 0);
  assert.equal(await requests(lease, `http://127.0.0.1:${refusingPort}/`, 150), 0);

  // The data path reports a closed connection to the meter a moment later (every 200 ms).
  const c = await waitFor(
    async () => {
      const now = await counters(lease.id);
      return now.reqs >= 310 && now;
    },
    { timeoutMs: 10_000, intervalMs: 200, what: 'every request metered' },
  );
  // The customer still sees every failure (Failed %), and the hours add up to the totals.
  assert.ok(c.reqs >= 310 && c.fails >= 300, `reqs ${c.reqs}, fails ${c.fails}`);
  assert.deepEqual([c.hourReqs, c.hourFails], [c.reqs, c.fails]);
  assert.equal(c.agentFails, 0);
  const traffic = ZLeaseTrafficResponse.parse(
    (
      await callRoute(t, ENDPOINTS.getLeaseTraffic, { params: { id: lease.id }, headers: who.headers })
    ).json(),
  );
  assert.equal(
    traffic.hours.reduce((s, h) => s + h.fails, 0),
    c.fails,
  );

  assert.ok(!(await settle.autoRefundFailing()).refunded.includes(lease.id));
  assert.equal(await endReason(lease.id), null);
  const books = await booksOf(t, who.userId);
  assert.equal(books.balanceC, 4500);
  assert.equal(books.balanceC, books.ledgerSumC);
});

test('a lease whose agent really dies in the last hour is refunded; the same failures over an hour ago are not', {
  timeout: 180_000,
}, async () => {
  const dies = await buy('192.0.2.62');
  const diedLongAgo = await buy('192.0.2.63');
  for (const l of [dies, diedLongAgo]) {
    assert.equal(
      (await curlRetrying(['--socks5-hostname', proxyOf(l.lease), `http://127.0.0.1:${filesPort}/`], 10))
        .code,
      0,
    );
    assert.equal(await requests(l.lease, `http://127.0.0.1:${filesPort}/`, 4), 4);
    // The tunnel is cut: the agent is gone, and every request after it fails.
    await takeOffline(l.agentId);
    assert.equal(await requests(l.lease, `http://127.0.0.1:${filesPort}/`, 12), 0);
    const c = await counters(l.lease.id);
    assert.deepEqual({ reqs: c.reqs, agentFails: c.agentFails }, { reqs: 17, agentFails: 12 });
  }
  // The second lease's failures happened two hours ago.
  await t.db.query("UPDATE lease_traffic_hourly SET hour = hour - interval '2 hours' WHERE lease_id = $1", [
    diedLongAgo.lease.id,
  ]);

  const refunded = (await settle.autoRefundFailing()).refunded;
  assert.ok(refunded.includes(dies.lease.id), "the dead agent's lease is refunded");
  assert.ok(!refunded.includes(diedLongAgo.lease.id), 'failures over an hour old do not count');
  assert.equal(await endReason(dies.lease.id), 'autoRefunded');
  assert.equal(await endReason(diedLongAgo.lease.id), null);
  const books = await booksOf(t, dies.who.userId);
  assert.equal(books.balanceC, 5000);
  assert.equal(books.balanceC, books.ledgerSumC);
  assert.equal((await booksOf(t, diedLongAgo.who.userId)).balanceC, 4500);
});

test('a static lease never auto-refunds, whatever its agent does (its refund goes through support)', {
  timeout: 120_000,
}, async () => {
  const { lease, agentId, who } = await buy('192.0.2.64');
  // Bought through the lease path, then marked static: the rule reads only the flag.
  await t.db.query('UPDATE leases SET static = true WHERE id = $1', [lease.id]);
  assert.equal(
    (await curlRetrying(['--socks5-hostname', proxyOf(lease), `http://127.0.0.1:${filesPort}/`], 10)).code,
    0,
  );
  await takeOffline(agentId);
  assert.equal(await requests(lease, `http://127.0.0.1:${filesPort}/`, 15), 0);
  assert.equal((await counters(lease.id)).agentFails, 15);
  assert.ok(!(await settle.autoRefundFailing()).refunded.includes(lease.id));
  assert.equal(await endReason(lease.id), null);
  assert.equal((await booksOf(t, who.userId)).balanceC, 4500);
});
