/**
 * Issue 34's "Done when", played by a hostile customer through the real pieces together: the Ports
 * API and the market API on their own loopback listeners, a gateway node composed as production's
 * (`startGatewayNode`: spares, meter, package flush) with real agents over the tunnel, real SOCKS5
 * and HTTP proxy traffic to a loopback source, PostgreSQL. 200 MiB then a refund at once, or just
 * past the allowance right after a periodic flush: nothing back. Twenty buy-use-refund cycles: no
 * free traffic, books balanced, and flooding once the refund is paid relays nothing (the node froze
 * the package for the decision); a refused refund leaves the package usable within 1 s. A block:
 * both doors and the rotation link refused, the open connection cut within 5 s. A private lease on
 * a package's exit: its connection cut within 2 s.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type AgentHandle, startAgent } from '@pm/agent';
import {
  BYTES_PER_GB,
  PORT_REFUND_MAX_BYTES,
  type TPortPackage,
  ZPortPackage,
  ZPortPackages,
} from '@pm/contracts';
import { buildAgent } from '@pm/db/testing';
import { type GatewayNode, startGatewayNode } from '@pm/gateway';
import { createOverrideGeo } from '@pm/gateway/geo/geo';
import { curl, type HttpTarget, startHttpTarget } from '@pm/gateway/session/harness.testkit';
import { hashAgentKey } from '@pm/gateway/store/agent-registry';
import { findFreeRange } from '@pm/gateway/store/port-range.testkit';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { booksOf, buildCustomer, setFlatPrices, type TestCustomer } from '../../test/market.ts';
import {
  type ByteSource,
  isRefused,
  type Pull,
  pullThrough,
  pullWhenServed,
  startByteSource,
  within,
} from '../../test/package-traffic.ts';

const MiB = 1024 * 1024;
/** The node's package range: live packages (100 ports each) and the spares it keeps bound beside them. */
const RANGE = 800;
const SPARES = 200;
const HTTP_OFFSET = 1000;
const PLACES = {
  ny: { cc: 'US', reg: 'New York', city: 'New York', ips: ['192.0.2.91', '192.0.2.92'] },
  la: { cc: 'US', reg: 'California', city: 'Los Angeles', ips: ['192.0.2.93', '192.0.2.94'] },
} as const;
type Place = keyof typeof PLACES;
const geo = createOverrideGeo(
  Object.fromEntries(
    Object.values(PLACES).flatMap((p) =>
      p.ips.map((ip) => [ip, { cc: p.cc, reg: p.reg, city: p.city, zip: '', isp: 'Example', mob: false }]),
    ),
  ),
);

let t: TestApp;
let node: GatewayNode;
let source: ByteSource;
let web: HttpTarget;
let portsUrl: string;
let marketUrl: string;
const agents: AgentHandle[] = [];

before(
  async () => {
    t = await createTestApp('ports_hostile_gateway', {
      ports: true,
      payments: false,
      settings: { shopCacheMs: 0 },
    });
    portsUrl = await t.portsApp!.listen({ host: '127.0.0.1', port: 0 });
    marketUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
    await setFlatPrices(t, 500, 200);
    source = await startByteSource();
    web = await startHttpTarget();
    const min = await findFreeRange(RANGE, HTTP_OFFSET);
    node = await startGatewayNode({
      db: t.db,
      nodeId: 'gw-hostile',
      node: {
        publicHost: 'hostile.gw.test',
        publicIp: '127.0.0.1',
        socksBasePort: 0,
        packagePortMin: min,
        packagePortMax: min + RANGE - 1,
        packageHttpOffset: HTTP_OFFSET,
      },
      packageSparePorts: SPARES,
      host: '127.0.0.1',
      tunnelPort: 0,
      plaintextTunnel: true,
      trustAgentIp: true,
      geo,
      reverseDns: false,
      presence: { probeUrl: 'http://127.0.0.1:9/', speedUrl: 'http://127.0.0.1:9/', probeIntervalMs: 0 },
      probeRequests: { echoUrl: 'http://127.0.0.1:9/' },
    });
    for (const ip of [...PLACES.ny.ips, ...PLACES.la.ips]) await connectAgent(ip);
  },
  { timeout: 60_000 },
);

after(
  async () => {
    for (const a of agents) await a.close();
    await node?.close();
    await source?.close();
    await web?.close();
    await t?.close();
  },
  { timeout: 30_000 },
);

async function connectAgent(ip: string): Promise<void> {
  const key = randomBytes(24).toString('base64url');
  await buildAgent(t.db, { keyHash: hashAgentKey(key), nodeId: null, online: false, ip: '' });
  const agent = startAgent({
    gateway: { host: '127.0.0.1', port: node.gateway.tunnelPort },
    key,
    plaintext: true,
    ipOverride: ip,
    allowLoopback: true,
    backoffMinMs: 50,
    backoffMaxMs: 200,
  });
  agents.push(agent);
  await agent.waitConnected(5000);
  await node.plane.registry.idle();
}

/** A call to the Ports API's listener as `who` (none: the rotation link's caller). */
async function ports(who: TestCustomer | undefined, method: 'GET' | 'POST', path: string, body?: object) {
  // raw path: the Ports API over its real HTTP listener, which this gateway test needs; callRoute only injects
  const res = await fetch(`${portsUrl}${path}`, {
    method,
    headers: { ...who?.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body && JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Buys a 1 Gb package of 100 ports in `place` with login access, at the price the API quotes. */
async function buy(who: TestCustomer, place: Place): Promise<TPortPackage> {
  const p = PLACES[place];
  const offer = {
    time_period: 1,
    traffic: { type: 'limit', amount: 1 },
    geo: { country: p.cc, state: p.reg, city: p.city, connection_type: 'both' },
    access: { type: 'auth', port_amount: 100 },
  };
  const quote = await ports(who, 'POST', '/price', offer);
  assert.equal(quote.status, 200, JSON.stringify(quote.body));
  const res = await ports(who, 'POST', '/package/create', {
    ...offer,
    user_id: who.userId,
    price: quote.body.price,
    switch: { type: 'timer', timer: 5 },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return ZPortPackage.parse(res.body);
}

const refund = (who: TestCustomer, id: string) => ports(who, 'GET', `/package/refund/${id}`);
const pull = (pkg: TPortPackage) =>
  pullWhenServed(pkg.access.ports[0]!, pkg.access.auth_login, pkg.access.auth_password, source.port);
const counters = async (id: string) => {
  const [r] = await t.db.query<{ up: string; down: string }>(
    'SELECT upload AS up, download AS down FROM port_packages WHERE id = $1',
    [id],
  );
  return Number(r?.up) + Number(r?.down);
};

test('200 MiB through a 1 Gb package, refund asked at once: 409 notRefundable, nothing back', {
  timeout: 60_000,
}, async (ctx) => {
  const who = await buildCustomer(t, 1000, 'hostile');
  const pkg = await buy(who, 'ny');
  const paid = (await booksOf(t, who.userId)).balanceC;
  const open = await pull(pkg);
  const startedAt = Date.now();
  open.say(`send ${200 * MiB}`);
  assert.ok(await open.waitReceived(200 * MiB, 30_000), `received ${open.received()}`);
  // Still open: what the node holds of it reaches the database at its periodic flushes or when asked.
  const seenBefore = await counters(pkg.id);
  const res = await refund(who, pkg.id);
  ctx.diagnostic(
    `200 MiB in ${Date.now() - startedAt} ms; the database held ${seenBefore} bytes at the refund`,
  );
  assert.equal(res.status, 409, JSON.stringify(res.body));
  assert.equal(res.body.errorCode, 'notRefundable');
  const books = await booksOf(t, who.userId);
  assert.equal(books.balanceC, paid, 'nothing refunded');
  assert.equal(books.balanceC, books.ledgerSumC);
  const list = ZPortPackages.parse((await ports(who, 'GET', `/users/${who.userId}/packages`)).body);
  assert.deepEqual(
    list.packages.map((p) => [p.id, p.status.type, p.refundable]),
    [[pkg.id, 'active', false]],
  );
  open.socket.destroy();
  // `within` answers the milliseconds it took: 0 when the bytes were already there.
  const metered = await within(async () => (await counters(pkg.id)) >= 200 * MiB, 5000);
  assert.notEqual(metered, undefined, 'every byte metered');
});

test("just past the allowance, refund asked right after a periodic flush: refused on the node's exact counters, usable again within 1 s", {
  timeout: 30_000,
}, async (ctx) => {
  const who = await buildCustomer(t, 1000, 'edge');
  const pkg = await buy(who, 'ny');
  const paid = (await booksOf(t, who.userId)).balanceC;
  const open = await pull(pkg);
  try {
    open.say('send 1000');
    assert.ok(await open.waitReceived(1000, 5000));
    // The meter has just written: the next periodic write is a flush period (2 s) away.
    const flushed = await within(async () => (await counters(pkg.id)) >= 1000, 5000);
    assert.notEqual(flushed, undefined, 'the first periodic flush');
    const bytes = PORT_REFUND_MAX_BYTES + MiB;
    open.say(`send ${bytes}`);
    assert.ok(await open.waitReceived(1000 + bytes, 10_000), `received ${open.received()}`);
    const seenBefore = await counters(pkg.id);
    const res = await refund(who, pkg.id);
    // Below the allowance here, the last periodic flush would have paid out in full.
    ctx.diagnostic(`the database held ${seenBefore} bytes when the refund was asked`);
    assert.equal(res.status, 409, JSON.stringify(res.body));
    assert.equal(res.body.errorCode, 'notRefundable');
    const answeredAt = Date.now();
    assert.ok((await counters(pkg.id)) > PORT_REFUND_MAX_BYTES, 'decided on the open connection’s bytes');
    assert.equal((await booksOf(t, who.userId)).balanceC, paid, 'nothing refunded');
    // The node froze the package for the decision; the refusal withdrew the request: it serves again.
    const again = await pull(pkg);
    again.say('send 1000');
    assert.ok(await again.waitReceived(1000, 1000), 'the new connection relays');
    again.socket.destroy();
    const usableMs = Date.now() - answeredAt;
    assert.ok(usableMs <= 1000, `usable again ${usableMs} ms after the refusal`);
  } finally {
    open.socket.destroy();
  }
});

/** One buy-use-refund cycle's figures. */
interface Cycle {
  id: string;
  priceC: number;
  backC: number;
  /** Bytes the customer had received when the refund answered, and in all. */
  atRefund: number;
  received: number;
  /** From the refund's answer to the gateway cutting the connection. */
  cutMs: number;
}

/**
 * Buys a 1 Gb package, pulls `bytes` through one of its ports and asks for the refund with the
 * connection still open; with `flood`, the customer's source then sends without end. Resolves once
 * the gateway cut the connection (at most 2 s after the refund's answer).
 */
async function cycle(who: TestCustomer, bytes: number, flood: boolean): Promise<Cycle> {
  const pkg = await buy(who, 'ny');
  const open = await pull(pkg);
  try {
    open.say(`send ${bytes}`);
    assert.ok(await open.waitReceived(bytes, 10_000), `received ${open.received()}`);
    const before = (await booksOf(t, who.userId)).balanceC;
    const res = await refund(who, pkg.id);
    const answeredAt = Date.now();
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const atRefund = open.received();
    if (flood) open.say('flood');
    const cut = await Promise.race([open.ended, new Promise<number>((r) => setTimeout(() => r(0), 2000))]);
    assert.ok(cut > 0, "the refunded package's open connection is cut within 2 s");
    const backC = (await booksOf(t, who.userId)).balanceC - before;
    return {
      id: pkg.id,
      priceC: pkg.price,
      backC,
      atRefund,
      received: open.received(),
      cutMs: cut - answeredAt,
    };
  } finally {
    open.socket.destroy();
  }
}

/** Sums of the cycles: cents charged and refunded, and the metered traffic's worth at each package's price (cents × BYTES_PER_GB). */
async function settle(cycles: Cycle[]) {
  const charged = cycles.reduce((s, c) => s + c.priceC, 0);
  const refunded = cycles.reduce((s, c) => s + c.backC, 0);
  let worth = 0n;
  for (const c of cycles) {
    // The connections ended: their bytes reach the database at the meter's next flush.
    await within(async () => (await counters(c.id)) >= c.received, 5000);
    const metered = await counters(c.id);
    assert.ok(metered >= c.received, `${c.id}: metered ${metered} < received ${c.received}`);
    worth += BigInt(metered) * BigInt(c.priceC);
  }
  return { charged, refunded, worth, keptWorth: BigInt(charged - refunded) * BigInt(BYTES_PER_GB) };
}

test('20 buy-use-refund cycles by one customer gain no free traffic; the books balance', {
  timeout: 120_000,
}, async (ctx) => {
  const startC = 10_000;
  const who = await buildCustomer(t, startC, 'farmer');
  const cycles: Cycle[] = [];
  // 2-4 MiB each: within the 10 MiB allowance, so every refund pays out.
  for (let i = 0; i < 20; i++) cycles.push(await cycle(who, (2 + (i % 3)) * MiB, false));
  const { charged, refunded, worth, keptWorth } = await settle(cycles);
  ctx.diagnostic(
    `charged ${charged}, refunded ${refunded}, metered traffic worth ${Number(worth) / BYTES_PER_GB} cents`,
  );
  // No free traffic: what the customer kept pays for every byte metered, at the package's price per Gb...
  assert.ok(keptWorth >= worth, `kept ${charged - refunded} cents for ${Number(worth) / BYTES_PER_GB}`);
  // ...and no more than that plus a cent of rounding per cycle.
  assert.ok(keptWorth - BigInt(cycles.length * BYTES_PER_GB) <= worth);
  const books = await booksOf(t, who.userId);
  assert.equal(books.balanceC, startC - charged + refunded);
  assert.equal(books.balanceC, books.ledgerSumC, 'balance = the sum of the ledger rows');
});

test('flooding the open connection once the refund is paid: no free traffic past one allowance in 20 cycles', {
  timeout: 120_000,
}, async (ctx) => {
  const who = await buildCustomer(t, 10_000, 'flooder');
  const cycles: Cycle[] = [];
  for (let i = 0; i < 20; i++) cycles.push(await cycle(who, 2 * MiB, true));
  const { charged, refunded, worth, keptWorth } = await settle(cycles);
  const after = cycles.reduce((s, c) => s + c.received - c.atRefund, 0);
  const cuts = cycles.map((c) => c.cutMs).sort((a, b) => a - b);
  ctx.diagnostic(
    `${after} bytes after the refunds (cut ${cuts[0]}-${cuts.at(-1)} ms after the answer); kept ${charged - refunded} cents for traffic worth ${Number(worth) / BYTES_PER_GB}`,
  );
  assert.ok(
    keptWorth + BigInt(PORT_REFUND_MAX_BYTES) * BigInt(cycles[0]!.priceC) >= worth,
    'free traffic within one allowance',
  );
  // Frozen before the flush, the open connection held no grant: nothing after the answer, all paid for.
  assert.equal(after, 0, 'no byte after the refund’s answer');
  assert.ok(keptWorth >= worth, `kept ${charged - refunded} cents for ${Number(worth) / BYTES_PER_GB}`);
});

test('a blocked customer: SOCKS, the HTTP twin and the rotation link refused, the open connection cut, within 5 s', {
  timeout: 60_000,
}, async (ctx) => {
  const who = await buildCustomer(t, 1000, 'blocked');
  const pkg = await buy(who, 'ny');
  const port = pkg.access.ports[0]!;
  const { auth_login: login, auth_password: pwd, http_port_offset: offset } = pkg.access;
  const link = `/port/change/ip/${port}/${pkg.switch.api_key}`;
  assert.equal((await ports(undefined, 'GET', link)).status, 200, 'the link rotates before the block');
  const open = await pull(pkg);
  open.say('send 1000');
  assert.ok(await open.waitReceived(1000, 5000));
  const viaTwin = () =>
    curl(
      ['-x', `http://${login}:${pwd}@127.0.0.1:${port + offset}`, `http://127.0.0.1:${web.port}/bytes/64`],
      2,
    );
  assert.equal((await viaTwin()).code, 0, 'the HTTP twin serves before the block');

  // As staff block an account: identity's admin API writes this very column (its trigger notifies).
  const blockedAt = Date.now();
  await t.db.query('UPDATE accounts SET blocked = true WHERE user_id = $1', [who.userId]);
  const left = () => 5000 - (Date.now() - blockedAt);
  const cut = await Promise.race([open.ended, new Promise<number>((r) => setTimeout(() => r(0), left()))]);
  assert.ok(cut > 0, 'the open connection is cut');
  const socksMs = await within(() => isRefused(pullThrough(port, login, pwd, source.port, 1000)), left());
  assert.ok(socksMs !== undefined, 'SOCKS refused');
  const twinMs = await within(async () => (await viaTwin()).code !== 0, left());
  assert.ok(twinMs !== undefined, 'the HTTP twin refused');
  const rotation = await ports(undefined, 'GET', link);
  assert.equal(rotation.status, 403, JSON.stringify(rotation.body));
  assert.equal(rotation.body.errorCode, 'accountBlocked');
  const tookMs = Date.now() - blockedAt;
  ctx.diagnostic(`cut after ${cut - blockedAt} ms; every door refused ${tookMs} ms after the block`);
  assert.ok(tookMs <= 5000, `all refused within 5 s (${tookMs} ms)`);
});

test('another customer buys the exit privately: the package connection through it is cut within 2 s', {
  timeout: 60_000,
}, async (ctx) => {
  const who = await buildCustomer(t, 1000, 'sharer');
  const pkg = await buy(who, 'la');
  const port = pkg.access.ports[0]!;
  const open: Pull = await pull(pkg);
  open.say('send 1000');
  assert.ok(await open.waitReceived(1000, 5000));
  const exit = node.plane.packages.stickyExit(port);
  assert.ok(exit, 'the port has a current exit');

  const rival = await buildCustomer(t, 5000, 'rival');
  const res = await fetch(`${marketUrl}/leases`, {
    method: 'POST',
    headers: { ...rival.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ agentID: exit, expPriceC: 500, exc: true }),
  });
  const soldAt = Date.now();
  assert.equal(res.status, 201, await res.text());
  const cut = await Promise.race([open.ended, new Promise<number>((r) => setTimeout(() => r(0), 2000))]);
  assert.ok(cut > 0, 'the package connection through the private exit is cut within 2 s');
  ctx.diagnostic(`cut ${cut - soldAt} ms after the private sale's answer`);
  const next = await pull(pkg);
  next.say('send 1000');
  assert.ok(await next.waitReceived(1000, 5000), 'the package goes on through its other exit');
  assert.notEqual(node.plane.packages.stickyExit(port), exit, 'never again through the private one');
  next.socket.destroy();
});
