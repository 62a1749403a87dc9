/**
 * Purchases against the real proxy network on loopback: the API, a gateway node with its
 * PostgreSQL control plane and purchase-probe worker, real agents dialing it, and an IP echo that
 * answers each agent's exit. `probe: true` meets probeErrAgent and agentInfoChanged for real, and
 * a bought lease's credentials fetch a page through the gateway's SOCKS ports.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { ENDPOINTS, ZAgent, ZLease, ZPurchaseErrorBody } from '@pm/contracts';
import { buildAgent, buildNode } from '@pm/db/testing';
import { type ProbeRequestWorker, startProbeRequestWorker } from '@pm/gateway';
import { createOverrideGeo } from '@pm/gateway/geo/geo';
import { curl } from '@pm/gateway/session/harness.testkit';
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

const PROBE_TIMEOUT_MS = 1500;
const AUSTIN = { cc: 'US', reg: 'TX', city: 'Austin', zip: '73301', isp: 'Example Cable', mob: false };
const LYON = { cc: 'FR', reg: 'ARA', city: 'Lyon', zip: '69001', isp: 'Exemple Mobile', mob: true };
const geo = createOverrideGeo({
  '192.0.2.41': { ...AUSTIN, host: 'a41.cable.example' },
  '192.0.2.42': { ...AUSTIN, host: 'a42.cable.example' },
  '198.51.100.7': { ...LYON, host: 'lyon7.mobile.example' },
});

let t: TestApp;
let stack: GatewayStack;
let probes: ProbeRequestWorker;
let echo: http.Server;
let echoPort: number;
/** Each agent's public exit as the echo service sees it (the carrier's NAT, in effect). */
const exits = new Map<string, string>();

/** A real agent dialing the gateway with exit `ip`, its exit known to the echo. */
async function connectAgent(ip: string, o: { allowLoopback: boolean }): Promise<string> {
  const agentId = await stack.connectAgent(ip, o);
  exits.set(agentId, ip);
  return agentId;
}

before(async () => {
  t = await createTestApp('lease_gateway', {
    payments: false,
    settings: { purchaseProbeTimeoutMs: PROBE_TIMEOUT_MS, shopCacheMs: 0 },
  });
  await setFlatPrices(t, 500, 200);
  echo = http.createServer((req, res) => {
    if (req.url === '/ip') {
      const agentId = String(req.headers['x-probe-agent'] ?? '');
      return res.end(`${exits.get(agentId) ?? req.socket.remoteAddress}\n`);
    }
    res.end('hello through the bought proxy');
  });
  echoPort = await listenLoopback(echo);
  stack = await startGatewayStack(t.db, { nodeId: 'gw-buy', geo });
  probes = startProbeRequestWorker({
    db: t.db,
    nodeId: 'gw-buy',
    dialer: stack.gateway,
    echoUrl: `http://127.0.0.1:${echoPort}/ip`,
    geo,
    reverseDns: false,
  });
  await probes.ready;
});

after(async () => {
  await probes?.close();
  await stack?.close();
  await closeServer(echo);
  await t?.close();
});

const shopView = async (agentId: string, headers: Record<string, string>) =>
  ZAgent.parse((await callRoute(t, ENDPOINTS.getAgent, { params: { id: agentId }, headers })).json());

test('the exit moved between the shop and the purchase: agentInfoChanged, the agent updated, then the sale', async () => {
  const buyer = await buildCustomer(t, 5000);
  const agentId = await connectAgent('192.0.2.41', { allowLoopback: true });
  assert.equal((await shopView(agentId, buyer.headers)).loc.city, 'Austin');

  exits.set(agentId, '198.51.100.7');
  const before = await booksOf(t, buyer.userId);
  const res = await postLease(t, buyer, { agentID: agentId, expPriceC: 500, exc: true, probe: true });
  assert.equal(res.statusCode, 409, res.body);
  const error = ZPurchaseErrorBody.parse(res.json());
  assert.equal(error.errorCode, 'agentInfoChanged');
  assert.deepEqual(error.changes, ['ip', 'geo', 'host']);
  assert.deepEqual(await booksOf(t, buyer.userId), before);

  // The shop now shows the exit the probe saw, and buying it with the probe goes through.
  const reloaded = await shopView(agentId, buyer.headers);
  assert.deepEqual([reloaded.loc.cc, reloaded.loc.city], ['FR', 'Lyon']);
  assert.match(reloaded.host, /\.mobile\.example$/, 'the new host name (masked until leased)');
  const sale = await postLease(t, buyer, { agentID: agentId, expPriceC: 500, exc: true, probe: true });
  assert.equal(sale.statusCode, 201, sale.body);
  const lease = ZLease.parse(sale.json());
  assert.equal(lease.info.ip, '198.51.100.7');
  assert.equal(lease.info.loc.city, 'Lyon');

  // The answer names the ports the node listens on (its base is random, not the default 10000):
  // the client dials them as given, adding no offsets.
  const { user, pwd, ip, ports, httpPort } = lease.socks;
  assert.deepEqual(ports, stack.gateway.socksPorts, 'the four SOCKS ports the node listens on');
  assert.deepEqual([httpPort], stack.gateway.httpPorts, 'the HTTP proxy port the node listens on');
  // End to end: the lease's credentials on each of those ports fetch a loopback page.
  for (const port of ports) {
    const r = await curlRetrying(
      ['--socks5-hostname', `${user}:${pwd}@${ip}:${port}`, `http://127.0.0.1:${echoPort}/page`],
      5,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.toString(), 'hello through the bought proxy');
  }
  const viaHttp = await curlRetrying(
    ['--proxy', `http://${user}:${pwd}@${ip}:${httpPort}`, `http://127.0.0.1:${echoPort}/page`],
    5,
  );
  assert.equal(viaHttp.code, 0, viaHttp.stderr);
  assert.equal(viaHttp.stdout.toString(), 'hello through the bought proxy');
  const wrong = await curl(
    ['--socks5-hostname', `${user}:nope@${ip}:${ports[0]}`, `http://127.0.0.1:${echoPort}/`],
    5,
  );
  assert.notEqual(wrong.code, 0);
});

test('an agent that cannot reach the echo is probeErrAgent; bought without the probe it sells', async () => {
  const buyer = await buildCustomer(t, 5000);
  // The agent's own policy refuses loopback destinations, so nothing gets through it here.
  const agentId = await connectAgent('192.0.2.42', { allowLoopback: false });
  const before = await booksOf(t, buyer.userId);
  const res = await postLease(t, buyer, { agentID: agentId, expPriceC: 200, exc: false, probe: true });
  assert.equal(res.statusCode, 409, res.body);
  assert.equal(res.json().errorCode, 'probeErrAgent');
  assert.deepEqual(await booksOf(t, buyer.userId), before);
  const [probe] = await t.db.query<{ ok: boolean }>(
    'SELECT ok FROM agent_probes WHERE agent_id = $1 ORDER BY id DESC LIMIT 1',
    [agentId],
  );
  assert.equal(probe?.ok, false, 'the gateway ran the probe and recorded the failure');

  const sale = await postLease(t, buyer, { agentID: agentId, expPriceC: 200, exc: false, probe: false });
  assert.equal(sale.statusCode, 201, sale.body);
  assert.equal((await booksOf(t, buyer.userId)).balanceC, before.balanceC - 200);
});

test('no gateway answers for the agent: probeErrAgent once the timeout is up, and the probe request is gone', async () => {
  const buyer = await buildCustomer(t, 5000);
  const ghost = await buildNode(t.db);
  const agent = await buildAgent(t.db, { nodeId: ghost.id });
  const started = Date.now();
  const res = await postLease(t, buyer, { agentID: agent.id, expPriceC: 500, exc: true, probe: true });
  const tookMs = Date.now() - started;
  assert.equal(res.statusCode, 409, res.body);
  assert.equal(res.json().errorCode, 'probeErrAgent');
  assert.ok(tookMs >= PROBE_TIMEOUT_MS && tookMs < PROBE_TIMEOUT_MS + 2000, `took ${tookMs} ms`);
  assert.deepEqual(await t.db.query('SELECT id FROM probe_requests'), []);
});
