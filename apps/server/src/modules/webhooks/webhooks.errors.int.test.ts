/**
 * A delivery's error says its class of failure and nothing else (issue 37): a name that resolves to
 * loopback, an address in the URL, a receiver that never answers, one that answers 500, a bad TLS
 * certificate, plain HTTP behind https://, a closed port and a name with no address each store their
 * class, with no address, name or system text a customer could map a network with. The allow-list
 * (WEBHOOK_ALLOW_URLS) lets exactly its origins through and no other private address.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AppError, WEBHOOK_DELIVERY_ERRORS } from '@pm/contracts';
import { createTestDatabase, newUserId, type TestDatabase } from '@pm/db/testing';
import { createLeaseService } from '../leases/leases.service.ts';
import { createLedgerService } from '../ledger/ledger.service.ts';
import { createWebhookService, deliveryErrorClass } from './webhooks.service.ts';

let db: TestDatabase;
const servers: Server[] = [];
const sockets = new Set<Socket>();
let hits = 0;
/** Receivers on loopback: `ok` answers 200, `fail` 500, `silent` accepts and never answers. */
const origin = { ok: '', fail: '', silent: '', badTls: '', plainBehindHttps: '', closed: '' };

const service = (o: { allowPrivate: boolean; allowOrigins?: string[] }) =>
  createWebhookService({
    db: db.db,
    leases: createLeaseService({ db: db.db, now: Date.now }),
    ledger: createLedgerService({ db: db.db }),
    jobs: { send: async () => null },
    now: Date.now,
    timeoutMs: 400,
    ...o,
  });

/** A throwaway self-signed certificate for 127.0.0.1 (openssl, as the gateway's tests make theirs). */
function selfSignedCert(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'wh-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
        ...['-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1'],
        ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      ],
      { stdio: 'ignore', timeout: 20_000 },
    );
    return {
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function listen(server: Server): Promise<number> {
  servers.push(server);
  server.on('connection', (s: Socket) => {
    hits++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

const answering = (status: number) =>
  createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.statusCode = status;
      res.end();
    });
  });

before(async () => {
  db = await createTestDatabase('webhook_errors');
  origin.ok = `http://127.0.0.1:${await listen(answering(200))}`;
  origin.fail = `http://127.0.0.1:${await listen(answering(500))}`;
  origin.silent = `http://127.0.0.1:${await listen(createTcpServer(() => {}))}`;
  origin.badTls = `https://127.0.0.1:${await listen(createHttpsServer(selfSignedCert(), (_q, s) => s.end()))}`;
  origin.plainBehindHttps = origin.ok.replace('http:', 'https:');
  const closed = createTcpServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  origin.closed = `http://127.0.0.1:${closedPort}`;
});
after(async () => {
  for (const s of sockets) s.destroy();
  for (const s of servers) s.close();
  await db?.drop();
});

/** Registers `url` (tests allow any), delivers one ping with `deliverer`; the stored error and the job's. */
async function tryDelivery(url: string, deliverer = service({ allowPrivate: true })) {
  const registrar = service({ allowPrivate: true });
  const userId = newUserId('err');
  const { id } = await registrar.createEndpoint(userId, url);
  const { deliveryId } = await registrar.ping(userId, id);
  const thrown = await deliverer.deliver(deliveryId).then(
    () => null,
    (e: Error) => e.message,
  );
  const [row] = await db.query<{ last_error: string | null; last_status_code: number | null }>(
    'SELECT last_error, last_status_code FROM webhook_deliveries WHERE id = $1',
    [deliveryId],
  );
  const listed = (await registrar.listDeliveries(userId)).deliveries[0]?.lastError;
  return { stored: row?.last_error ?? null, code: row?.last_status_code, thrown, listed };
}

/** Nothing a customer could learn a network from: no address, no name, no system error text. */
function assertNothingResolved(text: string | null): void {
  assert.doesNotMatch(
    text ?? '',
    /\d{1,3}(\.\d{1,3}){3}|::|localhost|\.invalid|\bE[A-Z]{3,}|certificate|socket|connect /,
  );
}

describe('each failure is stored as its class only', () => {
  const strict = () => service({ allowPrivate: false });

  test('a name that resolves to loopback: refused before connecting', async () => {
    const before = hits;
    const r = await tryDelivery(`${origin.ok.replace('127.0.0.1', 'localhost')}/hook`, strict());
    assert.equal(r.stored, WEBHOOK_DELIVERY_ERRORS.refused);
    assert.equal(r.listed, WEBHOOK_DELIVERY_ERRORS.refused);
    assert.equal(hits, before, 'nothing connected');
    assertNothingResolved(r.thrown);
  });

  test('an address in the URL, in any spelling: refused before connecting', async () => {
    const port = new URL(origin.ok).port;
    const before = hits;
    for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '0.0.0.0']) {
      const r = await tryDelivery(`http://${host}:${port}/hook`, strict());
      assert.equal(r.stored, WEBHOOK_DELIVERY_ERRORS.refused, host);
      assertNothingResolved(r.thrown);
    }
    assert.equal(hits, before, 'nothing connected');
  });

  test('a receiver that never answers: timeout', async () => {
    const r = await tryDelivery(`${origin.silent}/hook`);
    assert.equal(r.stored, WEBHOOK_DELIVERY_ERRORS.timeout);
    assert.equal(r.code, null);
    assertNothingResolved(r.thrown);
  });

  test('an answer of 500: status 500', async () => {
    const r = await tryDelivery(`${origin.fail}/hook`);
    assert.deepEqual([r.stored, r.code, r.listed], ['status 500', 500, 'status 500']);
    assert.match(r.thrown ?? '', /: status 500$/, 'the job retries with the class as its error');
  });

  test('a certificate that does not verify, and plain HTTP behind https://: TLS', async () => {
    for (const url of [origin.badTls, origin.plainBehindHttps]) {
      const r = await tryDelivery(`${url}/hook`);
      assert.equal(r.stored, WEBHOOK_DELIVERY_ERRORS.tls, url);
      assertNothingResolved(r.thrown);
    }
  });

  test('a closed port: connection failed; a name with no address: name not resolved', async () => {
    const closed = await tryDelivery(`${origin.closed}/hook`);
    assert.equal(closed.stored, WEBHOOK_DELIVERY_ERRORS.connection);
    assertNothingResolved(closed.thrown);
    const unknown = await tryDelivery('https://hooks.proxymarket.invalid/hook');
    assert.equal(unknown.stored, WEBHOOK_DELIVERY_ERRORS.dns);
    assertNothingResolved(unknown.thrown);
  });

  test('a delivery logged before errors were classes is shown as its class', () => {
    assert.equal(deliveryErrorClass('refused private address 10.0.0.5'), WEBHOOK_DELIVERY_ERRORS.refused);
    assert.equal(deliveryErrorClass('answered 503'), 'status 503');
    assert.equal(deliveryErrorClass('timed out'), WEBHOOK_DELIVERY_ERRORS.timeout);
    assert.equal(
      deliveryErrorClass('connect ECONNREFUSED 10.0.0.5:6379'),
      WEBHOOK_DELIVERY_ERRORS.connection,
    );
    assert.equal(deliveryErrorClass('status 404'), 'status 404');
    assert.equal(deliveryErrorClass(null), null);
  });
});

describe('the allow-list (WEBHOOK_ALLOW_URLS)', () => {
  test('its exact origins may be http:// on loopback; no other private address, no other spelling', async () => {
    const listed = service({ allowPrivate: false, allowOrigins: [origin.ok] });
    const userId = newUserId('allow');
    const { id } = await listed.createEndpoint(userId, `${origin.ok}/hooks/demo`);
    const { deliveryId } = await listed.ping(userId, id);
    await listed.deliver(deliveryId);
    const log = await listed.listDeliveries(userId);
    assert.deepEqual(
      log.deliveries.map((d) => [d.status, d.lastError]),
      [['delivered', null]],
    );
    const port = Number(new URL(origin.ok).port);
    for (const url of [
      `${origin.fail}/hook`, // another loopback port
      `https://127.0.0.1:${port + 1}/hook`,
      `http://localhost:${port}/hook`, // the same socket under another name is another origin
      `https://127.0.0.1:${port}/hook`, // another scheme
      'http://10.0.0.5/hook',
    ]) {
      await assert.rejects(
        listed.createEndpoint(userId, url),
        (e: unknown) => e instanceof AppError && e.code === 'VALIDATION_FAILED',
        url,
      );
    }
    // An endpoint registered while the list named its origin is refused once the list does not.
    const unlisted = service({ allowPrivate: false });
    const again = await listed.ping(userId, id);
    await unlisted.deliver(again.deliveryId).catch(() => {});
    const [row] = await db.query<{ last_error: string | null }>(
      'SELECT last_error FROM webhook_deliveries WHERE id = $1',
      [again.deliveryId],
    );
    assert.equal(row?.last_error, WEBHOOK_DELIVERY_ERRORS.refused);
  });
});
