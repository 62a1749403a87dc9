/**
 * The agents' tunnel endpoint as an attacker or a misconfigured agent meets it: certificate names,
 * the handshake before anything else, clients that never read, and tunnels renewed before their
 * TLS keys have carried too many records.
 */
import assert from 'node:assert/strict';
import type net from 'node:net';
import { after, before, describe, test } from 'node:test';
import tls from 'node:tls';
import { type AgentConfig, startAgent } from '@pm/agent';
import { waitFor } from '@pm/testkit';
import {
  encodeHeader,
  MAX_CONTROL_FRAME,
  T_HELLO,
  T_PING,
  TUNNEL_DROP_WATER,
  TUNNEL_TLS,
  TUNNEL_VERSION,
} from '@pm/tunnel';
import { createMemoryRegistry } from '../policy/memory.ts';
import { socksConnect } from '../protocol/client.ts';
import { buildLease, startHttpTarget, startTestNetwork } from '../session/harness.testkit.ts';
import { makeSelfSignedCert } from './self-signed.ts';
import { startTunnelServer, type TunnelServer } from './server.ts';

/** A frame as bytes. */
function frame(type: number, payload: Buffer): Buffer {
  return Buffer.concat([encodeHeader(type, 0, payload.length), payload]);
}

const HELLO = frame(
  T_HELLO,
  Buffer.from(JSON.stringify({ v: TUNNEL_VERSION, key: 'key-1', conn: 'wifi', dev: 'other', window: 65536 })),
);
const PING = frame(T_PING, Buffer.alloc(MAX_CONTROL_FRAME, 0x70));

describe('the tunnel endpoint', () => {
  const pem = makeSelfSignedCert();
  let server: TunnelServer;

  before(async () => {
    server = await startTunnelServer({
      host: '127.0.0.1',
      port: 0,
      tls: pem,
      registry: createMemoryRegistry({ 'key-1': 'agent-1' }),
      handshakeTimeoutMs: 5000,
    });
  });
  after(() => server.close());

  /** A TLS client of the tunnel port that trusts the test certificate and reads nothing unless told. */
  async function rawClient(): Promise<tls.TLSSocket> {
    const s = tls.connect({ ...TUNNEL_TLS, host: '127.0.0.1', port: server.port, ca: pem.cert });
    await new Promise<void>((resolve, reject) => {
      s.once('secureConnect', resolve);
      s.once('error', reject);
    });
    return s;
  }

  /**
   * Writes `bytes` over and over, never reading, until the gateway drops the connection or `maxBytes`
   * went out; resolves with the bytes written and whether it was dropped.
   */
  function flood(
    s: tls.TLSSocket,
    bytes: Buffer,
    maxBytes: number,
  ): Promise<{ written: number; dropped: boolean }> {
    return new Promise((resolve) => {
      let written = 0;
      let done = false;
      const finish = (dropped: boolean) => {
        if (done) return;
        done = true;
        s.destroy();
        resolve({ written, dropped });
      };
      s.on('error', () => finish(true));
      s.on('close', () => finish(true));
      const pump = () => {
        while (!done && written < maxBytes) {
          written += bytes.length;
          if (!s.write(bytes)) return void s.once('drain', pump);
        }
        if (written >= maxBytes) finish(false);
      };
      pump();
    });
  }

  test('TLS 1.3 only: a TLS 1.2 client is refused', async () => {
    const s = tls.connect({ host: '127.0.0.1', port: server.port, ca: pem.cert, maxVersion: 'TLSv1.2' });
    const err = await new Promise<Error>((resolve) => s.once('error', resolve));
    assert.match(String(err), /protocol version|alert/i);
  });

  test('before HELLO nothing is answered: a PING gets no PONG and closes the connection', async () => {
    const s = await rawClient();
    const got: Buffer[] = [];
    s.on('data', (d: Buffer) => got.push(d));
    s.write(PING);
    await new Promise<void>((resolve) => s.once('close', () => resolve()));
    assert.equal(Buffer.concat(got).length, 0, 'not a byte of application data came back');
  });

  test('an unauthenticated client that sends PINGs and never reads is dropped at once', async () => {
    const s = await rawClient();
    s.pause();
    const { written, dropped } = await flood(s, PING, 64 * 1024 * 1024);
    assert.ok(dropped, 'dropped');
    // The kernel's socket buffers take some before the close reaches the writer: a few MB at most.
    assert.ok(written < 16 * 1024 * 1024, `wrote ${written} bytes before the drop`);
  });

  test('an authenticated client that sends PINGs and never reads is dropped past the drop mark', {
    timeout: 30_000,
  }, async (t) => {
    const s = await rawClient();
    s.pause();
    s.write(HELLO);
    await waitFor(() => server.get('agent-1') !== undefined, { timeoutMs: 2000, what: 'authenticated' });
    const mux = server.get('agent-1')!;
    // The gateway's queue for this client, after each of its writes.
    let maxQueued = 0;
    const write = mux.socket.write.bind(mux.socket) as (b: Buffer, cb?: () => void) => boolean;
    mux.socket.write = ((b: Buffer, cb?: () => void) => {
      const accepted = write(b, cb);
      maxQueued = Math.max(maxQueued, mux.socket.writableLength);
      return accepted;
    }) as typeof mux.socket.write;
    const { written, dropped } = await flood(s, PING, 256 * 1024 * 1024);
    t.diagnostic(`written ${written}, max queued ${maxQueued}`);
    assert.ok(dropped, `dropped (after ${written} bytes of PINGs)`);
    assert.ok(mux.closed);
    // Bounded: the drop mark plus what one read's PINGs add before the drop takes effect.
    assert.ok(maxQueued <= TUNNEL_DROP_WATER + 256 * 1024, `queued up to ${maxQueued} bytes`);
    await waitFor(() => server.get('agent-1') === undefined, {
      timeoutMs: 2000,
      what: 'the agent is offline',
    });
  });
});

describe('the agent verifies the gateway certificate for the name or address it dials', () => {
  const localhostOnly = makeSelfSignedCert(['DNS:localhost']);
  let server: TunnelServer;

  before(async () => {
    server = await startTunnelServer({
      host: '127.0.0.1',
      port: 0,
      tls: localhostOnly,
      registry: createMemoryRegistry({ 'key-1': 'agent-1' }),
      handshakeTimeoutMs: 5000,
    });
  });
  after(() => server.close());

  /** Starts an agent towards `host`, and returns what it logged once connected or `waitMs` passed. */
  async function tryDial(host: string, waitMs: number): Promise<{ connected: boolean; logs: string[] }> {
    const logs: string[] = [];
    const config: AgentConfig = {
      gateway: { host, port: server.port },
      key: 'key-1',
      tls: { ca: localhostOnly.cert },
      backoffMinMs: 50,
      backoffMaxMs: 100,
      log: (msg, fields) => logs.push(`${msg} ${JSON.stringify(fields)}`),
    };
    const agent = startAgent(config);
    const connected = await agent.waitConnected(waitMs).then(
      () => true,
      () => false,
    );
    await agent.close();
    return { connected, logs };
  }

  test('a certificate naming only localhost is refused at 127.0.0.1', async () => {
    const { connected, logs } = await tryDial('127.0.0.1', 1500);
    assert.equal(connected, false);
    assert.ok(
      logs.some((l) => l.includes('ERR_TLS_CERT_ALTNAME_INVALID')),
      `logged: ${logs.join('\n')}`,
    );
    assert.equal(server.agentIds().length, 0);
  });

  test('and accepted at localhost', async () => {
    const { connected } = await tryDial('localhost', 5000);
    assert.equal(connected, true);
  });

  test('an agent refuses a plaintext tunnel to a gateway that is not on loopback', () => {
    assert.throws(
      () => startAgent({ gateway: { host: '192.0.2.10', port: 7000 }, key: 'k', plaintext: true }),
      /plaintext tunnel is for a gateway on loopback only/,
    );
  });
});

test('a tunnel renews itself before its record budget is spent, without failing a request', {
  timeout: 60_000,
}, async () => {
  const target = await startHttpTarget();
  const lease = buildLease('agent-1');
  // A small budget: renewal at 150 records, the hard close at 300.
  const network = await startTestNetwork({
    keys: { 'key-1': 'agent-1' },
    leases: [lease],
    gateway: { recordLimit: 300 },
  });
  try {
    await network.addAgent('key-1', { recordLimit: 300 });
    const tunnels = new Set<unknown>();
    for (let i = 0; i < 150; i++) {
      tunnels.add(network.gateway.tunnel('agent-1'));
      const s: net.Socket = await socksConnect({
        proxyHost: '127.0.0.1',
        proxyPort: network.gateway.socksPorts[0]!,
        user: lease.user,
        pwd: lease.pwd,
        host: '127.0.0.1',
        port: target.port,
      });
      const answer = await new Promise<string>((resolve, reject) => {
        let text = '';
        s.on('data', (d: Buffer) => (text += d));
        s.on('end', () => resolve(text));
        s.on('error', reject);
        s.write('GET / HTTP/1.0\r\nHost: x\r\n\r\n');
      });
      assert.match(answer, /hello$/, `request ${i}`);
    }
    assert.ok(tunnels.size >= 3, `${tunnels.size} tunnels served the requests`);
    assert.equal(network.meter.get(lease.leaseId).fails, 0);
  } finally {
    await network.close();
    await target.close();
  }
});
