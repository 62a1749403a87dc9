/**
 * Refund rules against real traffic on loopback: the API, a gateway node with its PostgreSQL
 * control plane and meter, real agents dialing it. 99 MB through a lease keeps it refundable once
 * its agent is offline, 101 MB does not; a refunded lease's credentials stop within 2 seconds. The
 * auto-refund on real traffic: leases.autorefund.gateway.int.test.ts.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { ENDPOINTS, type TLease, ZLease } from '@pm/contracts';
import { waitFor } from '@pm/testkit';
import { createTestApp, type TestApp } from '../../test/app.ts';
import {
  closeServer,
  curlRetrying,
  type GatewayStack,
  listenLoopback,
  startGatewayStack,
} from '../../test/gateway-stack.ts';
import { booksOf, buildCustomer, postLease, setFlatPrices } from '../../test/market.ts';
import { callRoute } from '../../test/route.ts';

const MB = 1000 * 1000;
let t: TestApp;
let stack: GatewayStack;
let files: http.Server;
let filesPort: number;

before(async () => {
  t = await createTestApp('lease_refund_gateway', { payments: false, settings: { shopCacheMs: 0 } });
  await setFlatPrices(t, 500, 200);
  // `/bytes/<n>` answers n bytes.
  files = http.createServer((req, res) => {
    const n = Number(/^\/bytes\/(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
    res.writeHead(200, { 'content-length': n });
    const chunk = Buffer.alloc(64 * 1024, 120);
    let left = n;
    const pump = () => {
      while (left > 0) {
        const part = chunk.subarray(0, Math.min(left, chunk.length));
        left -= part.length;
        if (!res.write(part)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  filesPort = await listenLoopback(files);
  stack = await startGatewayStack(t.db, { nodeId: 'gw-refund' });
});

after(async () => {
  await stack?.close();
  await closeServer(files);
  await t?.close();
});

async function buy(
  ip: string,
): Promise<{ lease: TLease; agentId: string; who: Awaited<ReturnType<typeof buildCustomer>> }> {
  const who = await buildCustomer(t, 5000);
  const agentId = await stack.connectAgent(ip);
  const res = await postLease(t, who, { agentID: agentId, expPriceC: 500, exc: true });
  assert.equal(res.statusCode, 201, res.body);
  return { lease: ZLease.parse(res.json()), agentId, who };
}

const proxyOf = (lease: TLease) =>
  `${lease.socks.user}:${lease.socks.pwd}@${lease.socks.ip}:${lease.socks.ports[0]}`;

/** Fetches `url` through the lease, retrying while the gateway learns the new lease. */
async function fetchThrough(lease: TLease, url: string) {
  return curlRetrying(['--socks5-hostname', proxyOf(lease), '-o', '/dev/null', url], 60);
}

async function takeOffline(agentId: string): Promise<void> {
  await stack.closeAgent(agentId);
  await waitFor(
    async () => {
      const [row] = await t.db.query<{ online: boolean }>('SELECT online FROM agents WHERE id = $1', [
        agentId,
      ]);
      return !row?.online;
    },
    { timeoutMs: 5000, intervalMs: 100, what: `agent ${agentId} offline` },
  );
}

/** The lease's metered bytes once at least `min` are in the database (a connection's bytes are metered as it closes). */
async function meteredBytes(leaseId: string, min: number): Promise<number> {
  return waitFor(
    async () => {
      await stack.plane.meter.flush();
      const [row] = await t.db.query<{ b: string }>(
        'SELECT in_bytes + out_bytes AS b FROM leases WHERE id = $1',
        [leaseId],
      );
      const bytes = Number(row!.b);
      return bytes >= min && bytes;
    },
    { timeoutMs: 10_000, intervalMs: 100, what: `${min} bytes metered on ${leaseId}` },
  );
}

const refund = (lease: TLease, headers: Record<string, string>) =>
  callRoute(t, ENDPOINTS.refundLease, { params: { id: lease.id }, headers });

test('99 MB of real traffic refunds once the agent is offline, 101 MB does not; credentials stop within 2 s', {
  timeout: 240_000,
}, async () => {
  const small = await buy('192.0.2.51');
  const big = await buy('192.0.2.52');
  assert.equal((await fetchThrough(small.lease, `http://127.0.0.1:${filesPort}/bytes/${99 * MB}`)).code, 0);
  assert.equal((await fetchThrough(big.lease, `http://127.0.0.1:${filesPort}/bytes/${101 * MB}`)).code, 0);
  const smallBytes = await meteredBytes(small.lease.id, 99 * MB);
  assert.ok(smallBytes > 99 * MB && smallBytes < 100 * MB, `small lease moved ${smallBytes}`);
  assert.ok((await meteredBytes(big.lease.id, 101 * MB)) > 101 * MB, 'big lease metered');

  // Online: agentNotDead, whatever the traffic.
  const alive = await refund(small.lease, small.who.headers);
  assert.equal(alive.statusCode, 409);
  assert.equal(alive.json().errorCode, 'agentNotDead');

  await takeOffline(small.agentId);
  await takeOffline(big.agentId);
  const tooMuch = await refund(big.lease, big.who.headers);
  assert.equal(tooMuch.statusCode, 409);
  assert.equal(tooMuch.json().errorCode, 'notRefundable');
  const ok = await refund(small.lease, small.who.headers);
  assert.equal(ok.statusCode, 200, ok.body);
  assert.equal(ok.json().status, 'REFUND_STATUS_REFUNDED');
  const books = await booksOf(t, small.who.userId);
  assert.equal(books.balanceC, 5000);
  assert.equal(books.balanceC, books.ledgerSumC);

  // The gateway drops the refunded lease's credentials within 2 s (the directory no longer knows them).
  const { user, pwd } = small.lease.socks;
  await waitFor(() => !stack.plane.directory.findByCredentials(user, pwd), {
    timeoutMs: 2000,
    what: 'credentials revoked within 2 s',
  });
  assert.ok(
    stack.plane.directory.findByCredentials(big.lease.socks.user, big.lease.socks.pwd),
    'the other lease still runs',
  );
});
