import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { waitFor } from '@pm/testkit';
import fc from 'fast-check';
import { encodeGreeting, encodeRequest, encodeUserPass } from '../protocol/socks5.ts';
import { buildLease, startTestNetwork, type TestNetwork } from './harness.testkit.ts';

const TOTAL = Number(process.env.FUZZ_TOTAL ?? 100_000);
/** Connections in flight at once (a pool, so one slow case does not hold up the others). */
const CONCURRENCY = 256;
/** A connection that does not close within this time after sending counts as a hang. */
const PER_CONNECTION_LIMIT_MS = 6000;
const HANDSHAKE_TIMEOUT_MS = 1500;

let network: TestNetwork;
let echo: net.Server;
let echoPort: number;
const lease = buildLease('fuzz-agent');

before(async () => {
  echo = net.createServer((s) => {
    s.on('error', () => {});
    // Reads and drops what comes: a socket with unread bytes never sees the client's FIN, so a
    // target that never read held its socket open whenever the relay delivered a byte in time.
    s.resume();
    s.end('x');
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  echoPort = (echo.address() as net.AddressInfo).port;
  network = await startTestNetwork({
    keys: { 'fuzz-key': 'fuzz-agent' },
    leases: [lease],
    gateway: {
      handshakeTimeoutMs: HANDSHAKE_TIMEOUT_MS,
      openTimeoutMs: 3000,
      authFailure: { baseDelayMs: 1, maxDelayMs: 20 },
    },
  });
  // No DNS for fuzzed names: every name fails at once.
  await network.addAgent('fuzz-key', {
    connectTimeoutMs: 1000,
    // Fuzzed addresses must never leave the machine, nor reach its services (a mutated port once
    // hit epmd on 4369, which holds a connection open without answering: a false hang).
    restrictTo: ['127.0.0.0/8', '::1'],
    restrictPorts: [echoPort],
    lookup: (_host, cb) => cb(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), ''),
  });
});

after(async () => {
  await network.close();
  await new Promise<void>((r) => echo.close(() => r()));
});

interface Case {
  bytes: Uint8Array;
  /** Where to split the write in two (0 = one write). */
  split: number;
  /** Keep the connection open after writing (no FIN): the handshake timeout must end it. */
  holdOpen: boolean;
}

function arbitraryCase(valid: Buffer): fc.Arbitrary<Case> {
  const mutation = fc.record({
    op: fc.constantFrom('flip', 'set', 'delete', 'insert', 'truncate'),
    at: fc.nat(),
    byte: fc.integer({ min: 0, max: 255 }),
  });
  const mutated = fc.array(mutation, { minLength: 1, maxLength: 4 }).map((ms) => {
    let b = Buffer.from(valid);
    for (const m of ms) {
      const i = b.length ? m.at % b.length : 0;
      if (m.op === 'flip') b[i] = (b[i] ?? 0) ^ (1 << (m.byte & 7));
      else if (m.op === 'set') b[i] = m.byte;
      else if (m.op === 'delete') b = Buffer.concat([b.subarray(0, i), b.subarray(i + 1)]);
      else if (m.op === 'insert') b = Buffer.concat([b.subarray(0, i), Buffer.from([m.byte]), b.subarray(i)]);
      else b = b.subarray(0, i);
    }
    return new Uint8Array(b);
  });
  const bytes = fc.oneof(
    { weight: 3, arbitrary: mutated },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 600 }) },
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ maxLength: 300 })
        .map((tail) => new Uint8Array(Buffer.concat([encodeGreeting([2]), Buffer.from(tail)]))),
    },
  );
  return fc.record({
    bytes,
    split: fc.nat({ max: 40 }),
    holdOpen: fc.integer({ min: 0, max: 999 }).map((n) => n === 0),
  });
}

/** Runs one case; resolves with 'closed' or 'hang'. */
function runCase(port: number, c: Case): Promise<'closed' | 'hang'> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    const timer = setTimeout(() => {
      s.destroy();
      resolve('hang');
    }, PER_CONNECTION_LIMIT_MS);
    s.on('error', () => {});
    s.on('data', () => {});
    s.on('close', () => {
      clearTimeout(timer);
      resolve('closed');
    });
    s.on('connect', () => {
      const b = Buffer.from(c.bytes);
      const split = c.split > 0 && c.split < b.length ? c.split : 0;
      if (split) {
        s.write(b.subarray(0, split));
        setImmediate(() => {
          if (!s.destroyed) s.write(b.subarray(split));
          if (!c.holdOpen && !s.destroyed) s.end();
        });
      } else {
        if (b.length) s.write(b);
        if (!c.holdOpen) s.end();
      }
    });
  });
}

const tcpHandles = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;

test(`fuzz: ${TOTAL} random and mutated SOCKS5 handshakes, no crash, no hang, no leak`, {
  timeout: 240_000,
}, async () => {
  const valid = Buffer.concat([
    encodeGreeting([0, 2]),
    encodeUserPass(lease.user, lease.pwd),
    encodeRequest(1, '127.0.0.1', echoPort),
  ]);
  const handlesBefore = tcpHandles();
  const cases = fc.sample(arbitraryCase(valid), { numRuns: TOTAL, seed: 20261121 });
  assert.equal(cases.length, TOTAL);
  const port = network.gateway.socksPorts[0]!;
  let hangs = 0;
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < TOTAL) {
      const c = cases[next++]!;
      if ((await runCase(port, c)) === 'hang') {
        hangs++;
        if (hangs <= 3) console.log('hang:', Buffer.from(c.bytes).toString('hex'), c.split, c.holdOpen);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsedMs = Date.now() - started;
  assert.equal(hangs, 0, 'every connection ended within the limit');
  assert.ok(
    await waitFor(() => network.gateway.openConnections() === 0, { timeoutMs: 5000 }),
    `open: ${network.gateway.openConnections()}`,
  );
  assert.equal(await network.gateway.socketCount(), 0, 'the SOCKS listeners hold no socket');
  assert.ok(
    await waitFor(() => tcpHandles() <= handlesBefore, { timeoutMs: 5000 }),
    `TCP handles ${tcpHandles()} vs ${handlesBefore}`,
  );
  // The gateway still serves a well-formed client.
  const s = net.connect({ host: '127.0.0.1', port });
  const reply = await new Promise<Buffer>((resolve) => {
    const parts: Buffer[] = [];
    s.on('data', (d: Buffer) => parts.push(d));
    s.on('close', () => resolve(Buffer.concat(parts)));
    s.write(valid);
  });
  assert.equal(reply.subarray(0, 4).toString('hex'), '05020100', 'method + auth ok');
  assert.equal(reply[5], 0x00, 'CONNECT succeeded');
  console.log(`fuzz: ${TOTAL} handshakes in ${elapsedMs} ms`);
});

test('a refused client that keeps its side open is dropped by the handshake timeout', async () => {
  const s = net.connect({ host: '127.0.0.1', port: network.gateway.socksPorts[1]!, allowHalfOpen: true });
  s.on('error', () => {});
  const ended = new Promise<void>((r) => s.once('end', () => r()));
  s.on('data', () => {});
  // Offers only "no authentication" on an auth port: refused with 0xFF and the gateway's FIN.
  s.write(encodeGreeting([0]));
  await ended;
  // We never end our side: only the gateway's timer can release its socket.
  // The socket closes first, then its session's count: wait for both.
  await waitFor(
    async () => (await network.gateway.socketCount()) === 0 && network.gateway.openConnections() === 0,
    { timeoutMs: HANDSHAKE_TIMEOUT_MS + 2500, what: 'the gateway released the socket and its session' },
  );
  s.destroy();
});
