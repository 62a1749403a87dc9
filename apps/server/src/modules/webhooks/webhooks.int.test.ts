/**
 * Webhooks with a loopback receiver: the signature a receiver checks (HMAC-SHA256 of "<t>.<body>"),
 * retries until a 2xx answer and the give-up after the last try, each try in the delivery log,
 * private addresses refused, `lease.expiring` once per lease, and the customer's routes.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_SIGNATURE_HEADER } from '@pm/contracts';
import { buildAgent, buildLease, buildNode, newUserId } from '@pm/db/testing';
import { UNREPORTED } from '../../platform/jobs.ts';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { buildCustomer } from '../../test/market.ts';
import { callRoute } from '../../test/route.ts';
import { createLeaseService } from '../leases/leases.service.ts';
import { createLedgerService } from '../ledger/ledger.service.ts';
import { isPrivateAddress, verifyWebhook, webhookUrlProblem } from './webhooks.delivery.ts';
import { deliverWebhookJob, scanWebhookEventsJob } from './webhooks.jobs.ts';
import { createWebhookService } from './webhooks.service.ts';

interface Received {
  body: string;
  signature: string;
}

let t: TestApp;
let receiver: Server;
let received: Received[] = [];
/** Statuses the receiver answers, in turn; then 200. */
let answers: number[] = [];
let url: string;
const clockMs = Date.now();
const sent: string[] = [];

const service = (allowPrivate = true) =>
  createWebhookService({
    db: t.db.db,
    leases: createLeaseService({ db: t.db.db, now: () => clockMs }),
    ledger: createLedgerService({ db: t.db.db }),
    jobs: {
      send: async <P>(_job: unknown, p: P): Promise<string | null> => {
        sent.push((p as { deliveryId: string }).deliveryId);
        return null;
      },
    },
    now: () => clockMs,
    allowPrivate,
  });

before(async () => {
  t = await createTestApp('webhooks', { payments: false, settings: { webhooksAllowPrivate: true } });
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ body, signature: String(req.headers[WEBHOOK_SIGNATURE_HEADER] ?? '') });
      res.statusCode = answers.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
after(async () => {
  receiver?.close();
  await t?.close();
});

async function deliveryRow(id: string) {
  const [row] = await t.db.query<{
    status: string;
    attempts: number;
    last_status_code: number | null;
    last_error: string | null;
  }>('SELECT status, attempts, last_status_code, last_error FROM webhook_deliveries WHERE id = $1', [id]);
  return row;
}

describe('delivery', () => {
  test('signed as documented: HMAC-SHA256 of "<t>.<body>" with the secret; tampering or age fails the check', async () => {
    const s = service();
    const userId = newUserId('signed');
    const { secret, id } = await s.createEndpoint(userId, url);
    received = [];
    const { deliveryId } = await s.ping(userId, id);
    await s.deliver(deliveryId);
    const got = received[0];
    assert.ok(got);
    const nowS = Math.floor(clockMs / 1000);
    assert.equal(verifyWebhook(secret, got.body, got.signature, nowS, 300), true);
    assert.equal(verifyWebhook(secret, got.body.replace('ping', 'pong'), got.signature, nowS, 300), false);
    assert.equal(verifyWebhook('whsec_other', got.body, got.signature, nowS, 300), false);
    assert.equal(verifyWebhook(secret, got.body, got.signature, nowS + 301, 300), false);
    assert.deepEqual(JSON.parse(got.body).type, 'ping');
    assert.equal((await deliveryRow(deliveryId))?.status, 'delivered');
  });

  test('retried until a 2xx answer; every try is in the log', async () => {
    const s = service();
    const userId = newUserId('retry');
    const { id } = await s.createEndpoint(userId, url);
    answers = [500, 503];
    const { deliveryId } = await s.ping(userId, id);
    await assert.rejects(s.deliver(deliveryId), /status 500/);
    assert.deepEqual(await deliveryRow(deliveryId), {
      status: 'pending',
      attempts: 1,
      last_status_code: 500,
      last_error: 'status 500',
    });
    await assert.rejects(s.deliver(deliveryId), /status 503/);
    await s.deliver(deliveryId);
    assert.deepEqual(await deliveryRow(deliveryId), {
      status: 'delivered',
      attempts: 3,
      last_status_code: 200,
      last_error: null,
    });
    // Delivered: a late retry sends nothing.
    const before = received.length;
    await s.deliver(deliveryId);
    assert.equal(received.length, before);
  });

  test(`given up after ${WEBHOOK_MAX_ATTEMPTS} tries; the job retries with back-off`, async () => {
    const s = service();
    const userId = newUserId('giveup');
    const { id } = await s.createEndpoint(userId, url);
    answers = Array(WEBHOOK_MAX_ATTEMPTS).fill(500);
    const { deliveryId } = await s.ping(userId, id);
    for (let i = 1; i < WEBHOOK_MAX_ATTEMPTS; i++) await assert.rejects(s.deliver(deliveryId));
    await s.deliver(deliveryId); // the last try records the failure instead of throwing
    assert.equal((await deliveryRow(deliveryId))?.status, 'failed');
    assert.equal((await deliveryRow(deliveryId))?.attempts, WEBHOOK_MAX_ATTEMPTS);
    assert.deepEqual(
      { limit: deliverWebhookJob.retry.limit, backoff: deliverWebhookJob.retry.backoff },
      { limit: WEBHOOK_MAX_ATTEMPTS - 1, backoff: true },
    );
    answers = [];
  });

  test('private and loopback addresses are refused, at registration and when resolved', async () => {
    assert.equal(webhookUrlProblem('http://example.com/h', false), 'must be an https:// URL');
    assert.equal(webhookUrlProblem('https://127.0.0.1/h', false), 'must be a public address');
    assert.equal(webhookUrlProblem('https://localhost/h', false), 'must be a public address');
    assert.equal(webhookUrlProblem('https://u:p@example.com/h', false), 'must not contain credentials');
    assert.equal(webhookUrlProblem('https://example.com/h', false), null);
    for (const ip of [
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      // Past a first-octet check: benchmarking, documentation, NAT64 and 6to4 forms of loopback.
      '198.18.0.1',
      '203.0.113.9',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
    ]) {
      assert.equal(isPrivateAddress(ip), true, ip);
    }
    assert.equal(isPrivateAddress('8.8.8.8'), false);
    assert.equal(isPrivateAddress('2606:4700:4700::1111'), false);
  });
});

describe('events', () => {
  test('lease.expiring once per lease and end time, only to the lease owner', async () => {
    const s = service();
    const owner = await buildCustomer(t, 0, 'expiring');
    const other = newUserId('bystander');
    await s.createEndpoint(owner.userId, url);
    await s.createEndpoint(other, url);
    const nodeId = (await buildNode(t.db)).id;
    const agent = await buildAgent(t.db, { nodeId });
    const lease = await buildLease(t.db, agent.id, {
      userId: owner.userId,
      start: new Date(clockMs - 23 * 3_600_000),
      untilMs: clockMs + 30 * 60_000,
    });
    sent.length = 0;
    assert.equal(await s.notifyExpiringLeases(), 1);
    assert.equal(await s.notifyExpiringLeases(), 0, 'once');
    const [row] = await t.db.query<{ payload: { type: string; data: { leaseId: string; userId: string } } }>(
      'SELECT payload FROM webhook_deliveries WHERE id = $1',
      [sent[0]],
    );
    assert.equal(row?.payload.type, 'lease.expiring');
    assert.equal(row?.payload.data.leaseId, lease.id);
    assert.equal(row?.payload.data.userId, owner.userId);
  });
});

describe('lease.ended and deposit.credited', () => {
  test('each once, for the owner, from the last 15 minutes', async () => {
    const s = service();
    const owner = await buildCustomer(t, 2500, 'ender');
    await s.createEndpoint(owner.userId, url);
    const nodeId = (await buildNode(t.db)).id;
    const agent = await buildAgent(t.db, { nodeId });
    const lease = await buildLease(t.db, agent.id, {
      userId: owner.userId,
      start: new Date(clockMs - 3_600_000),
    });
    await t.db.query("UPDATE leases SET ended_at = $2, end_reason = 'refunded' WHERE id = $1", [
      lease.id,
      new Date(clockMs - 60_000),
    ]);
    await t.db.query("UPDATE txrecords SET type = 'deposit', time = $2 WHERE user_id = $1", [
      owner.userId,
      new Date(clockMs - 60_000),
    ]);
    sent.length = 0;
    assert.equal(await s.scanEvents(), 2);
    assert.equal(await s.scanEvents(), 0, 'once');
    const rows = await t.db.query<{ type: string; payload: { data: Record<string, unknown> } }>(
      'SELECT type, payload FROM webhook_deliveries WHERE id = ANY($1::uuid[]) ORDER BY type',
      [sent],
    );
    assert.deepEqual(
      rows.map((r) => r.type),
      ['deposit.credited', 'lease.ended'],
    );
    assert.equal(rows[0]?.payload.data.amountC, 2500);
    assert.equal(rows[1]?.payload.data.leaseId, lease.id);
    assert.equal(rows[1]?.payload.data.reason, 'refunded');
  });
});

describe('lease.agentOffline', () => {
  test('once per running lease and offline spell, after the grace, to the owner', async () => {
    const s = service();
    const owner = await buildCustomer(t, 0, 'offline');
    await s.createEndpoint(owner.userId, url);
    const nodeId = (await buildNode(t.db)).id;
    const minutesAgo = (m: number) => new Date(clockMs - m * 60_000);
    const gone = await buildAgent(t.db, { nodeId, online: false, lastSeen: minutesAgo(5) });
    const blip = await buildAgent(t.db, { nodeId, online: false, lastSeen: minutesAgo(0.5) });
    const up = await buildAgent(t.db, { nodeId, online: true, lastSeen: minutesAgo(0) });
    const lease = (agentId: string) =>
      buildLease(t.db, agentId, {
        userId: owner.userId,
        start: minutesAgo(60),
        untilMs: clockMs + 3_600_000,
      });
    const held = await lease(gone.id);
    await lease(blip.id);
    await lease(up.id);
    const ended = await lease(gone.id);
    await t.db.query("UPDATE leases SET ended_at = $2, end_reason = 'refunded' WHERE id = $1", [
      ended.id,
      minutesAgo(1),
    ]);
    const events = () =>
      t.db.query<{ payload: { data: Record<string, unknown> } }>(
        `SELECT d.payload FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
         WHERE e.user_id = $1 AND d.type = 'lease.agentOffline' ORDER BY d.created_at, d.id`,
        [owner.userId],
      );
    await s.notifyOfflineAgents();
    await s.notifyOfflineAgents();
    const first = await events();
    assert.equal(first.length, 1, 'only the held lease on the agent gone past the grace, once');
    assert.deepEqual(first[0]?.payload.data, {
      leaseId: held.id,
      agentId: gone.id,
      offlineSince: minutesAgo(5).toISOString(),
      userId: owner.userId,
    });
    // Back online, then gone again: a new spell is a new event.
    await t.db.query('UPDATE agents SET online = false, last_seen = $2 WHERE id = $1', [
      gone.id,
      minutesAgo(3),
    ]);
    await s.notifyOfflineAgents();
    await s.notifyOfflineAgents();
    const second = await events();
    assert.equal(second.length, 2);
    assert.equal(second[1]?.payload.data.offlineSince, minutesAgo(3).toISOString());
  });

  test('the every-minute scan job looks for it', async () => {
    const calls: string[] = [];
    const step = (name: string) => async () => {
      calls.push(name);
      return 0;
    };
    await scanWebhookEventsJob.handler(
      {},
      {
        webhooks: {
          notifyExpiringLeases: step('expiring'),
          notifyOfflineAgents: step('offline'),
          scanEvents: step('scan'),
        },
      },
      { failures: UNREPORTED },
    );
    assert.deepEqual(calls, ['expiring', 'offline', 'scan']);
  });
});

describe('routes', () => {
  test('register (secret once), list, ping, delivery log; nobody touches another customer’s endpoint', async () => {
    const c = await buildCustomer(t, 0, 'hooks');
    const stranger = await buildCustomer(t, 0, 'stranger');
    const endpoint = (
      await callRoute(t, ENDPOINTS.createWebhook, { headers: c.headers, body: { url } })
    ).ok();
    assert.match(endpoint.secret, /^whsec_/);
    const list = await callRoute(t, ENDPOINTS.listWebhooks, { headers: c.headers });
    assert.ok(!list.body.includes(endpoint.secret), 'the list never carries the secret');
    const ping = await callRoute(t, ENDPOINTS.pingWebhook, {
      params: { id: endpoint.id },
      headers: c.headers,
    });
    assert.equal(ping.statusCode, 202);
    const log = (await callRoute(t, ENDPOINTS.listWebhookDeliveries, { headers: c.headers })).ok();
    assert.deepEqual(
      log.deliveries.map((d) => [d.type, d.status]),
      [['ping', 'pending']],
    );
    const strangerLog = (
      await callRoute(t, ENDPOINTS.listWebhookDeliveries, { headers: stranger.headers })
    ).ok();
    assert.equal(strangerLog.deliveries.length, 0);
    const foreign = await callRoute(t, ENDPOINTS.deleteWebhook, {
      params: { id: endpoint.id },
      headers: stranger.headers,
    });
    assert.equal(foreign.statusCode, 404);
    const bad = await callRoute(t, ENDPOINTS.createWebhook, {
      headers: c.headers,
      body: { url: 'ftp://x.example' },
    });
    assert.equal(bad.statusCode, 400);
    const gone = await callRoute(t, ENDPOINTS.deleteWebhook, {
      params: { id: endpoint.id },
      headers: c.headers,
    });
    assert.equal(gone.statusCode, 204);
  });
});
