import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { waitFor } from '@pm/testkit';
import { socksConnect } from './protocol/client.ts';
import {
  assertPatternBytes,
  buildLease,
  curl,
  type HttpTarget,
  startHttpTarget,
  startTestNetwork,
  type TestNetwork,
} from './session/harness.testkit.ts';
import { body, httpGet, pipelined } from './session/raw-client.testkit.ts';

/** curl >= 8 prints the RFC text for reply 0x02; 7.x prints the code. */
const NOT_ALLOWED = /connection not allowed by ruleset|SOCKS5 connection to [^ ]+\. \(2\)/i;

describe('gateway data path over TLS (curl and own client)', () => {
  let target: HttpTarget;
  let net: TestNetwork;
  const lease = buildLease('agent-1');
  const strictLease = buildLease('agent-strict');

  before(async () => {
    target = await startHttpTarget();
    net = await startTestNetwork({
      keys: { 'key-1': 'agent-1', 'key-strict': 'agent-strict', 'key-ports': 'agent-ports' },
      leases: [lease, strictLease],
      tls: true,
      gateway: { authFailure: { baseDelayMs: 100, maxDelayMs: 400 }, metricsPort: 0 },
    });
    await net.addAgent('key-1');
    await net.addAgent('key-strict', {
      allowLoopback: false,
      restrictTo: undefined,
      // A name that resolves to a private address, as a hostile DNS answer would.
      lookup: (host, cb) => (host === 'intranet.test' ? cb(null, '10.0.0.5') : cb(null, '127.0.0.1')),
    });
  });
  /** Waits until the gateway has no open customer connection (their bytes are then metered). */
  const settle = () => waitFor(() => net.gateway.openConnections() === 0, { timeoutMs: 3000 });

  after(async () => {
    await net.close();
    await target.close();
  });

  test('curl fetches through each of the four SOCKS ports, metered exactly', async () => {
    assert.equal(net.gateway.socksPorts.length, 4);
    const before = net.meter.get(lease.leaseId);
    for (const port of net.gateway.socksPorts) {
      const r = await curl([
        '--socks5-hostname',
        `${lease.user}:${lease.pwd}@127.0.0.1:${port}`,
        `http://127.0.0.1:${target.port}/bytes/100000`,
      ]);
      assert.equal(r.code, 0, r.stderr);
      assertPatternBytes(r.stdout, 100_000);
    }
    assert.ok(await settle(), 'all connections closed');
    const after = net.meter.get(lease.leaseId);
    assert.equal(after.reqs - before.reqs, 4);
    assert.equal(after.fails - before.fails, 0);
    // Each response is the 100,000-byte body plus the same HTTP header block.
    const down = after.down - before.down;
    assert.ok(down > 4 * 100_000 && down % 4 === 0, `down ${down}`);
  });

  test('domain-name target is resolved by the agent (curl --socks5-hostname localhost)', async () => {
    const r = await curl([
      '--socks5-hostname',
      `${lease.user}:${lease.pwd}@127.0.0.1:${net.gateway.socksPorts[0]}`,
      `http://localhost:${target.port}/`,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.toString(), 'hello');
  });

  test('IPv6 target [::1]', async (t) => {
    if (target.port6 === undefined) {
      t.diagnostic('no IPv6 loopback on this machine');
      assert.equal(target.port6, undefined);
      return;
    }
    const r = await curl([
      '--socks5-hostname',
      `${lease.user}:${lease.pwd}@127.0.0.1:${net.gateway.socksPorts[1]}`,
      `http://[::1]:${target.port6}/bytes/1000`,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assertPatternBytes(r.stdout, 1000);
    const s = await socksConnect({
      proxyHost: '127.0.0.1',
      proxyPort: net.gateway.socksPorts[2]!,
      user: lease.user,
      pwd: lease.pwd,
      host: '::1',
      port: target.port6,
    });
    assertPatternBytes(body(await httpGet(s, '/bytes/2000')), 2000);
  });

  test('own client: IPv4 target, exact byte metering both ways', async () => {
    assert.ok(await settle());
    const before = net.meter.get(lease.leaseId);
    const s = await socksConnect({
      proxyHost: '127.0.0.1',
      proxyPort: net.gateway.socksPorts[3]!,
      user: lease.user,
      pwd: lease.pwd,
      host: '127.0.0.1',
      port: target.port,
    });
    const request = `GET /bytes/5000 HTTP/1.0\r\nHost: x\r\n\r\n`;
    const resp = await httpGet(s, '/bytes/5000');
    assertPatternBytes(body(resp), 5000);
    assert.ok(await settle(), 'connection closed');
    const after = net.meter.get(lease.leaseId);
    assert.equal(after.up - before.up, Buffer.byteLength(request));
    assert.equal(after.down - before.down, resp.length);
  });

  test('wrong password is refused with the RFC 1929 failure status', async () => {
    const r = await curl([
      '--socks5-hostname',
      `${lease.user}:wrong@127.0.0.1:${net.gateway.socksPorts[0]}`,
      `http://127.0.0.1:${target.port}/`,
    ]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /authentication failed|User was rejected/i);
    await assert.rejects(
      socksConnect({
        proxyHost: '127.0.0.1',
        proxyPort: net.gateway.socksPorts[0]!,
        user: 'nobody',
        pwd: 'nothing',
        host: '127.0.0.1',
        port: target.port,
      }),
      (err: { stage?: string }) => err.stage === 'auth',
    );
    // Repeated failures from one address are answered ever later (100, 200, then the 400 ms cap here).
    const attempt = async () => {
      const started = Date.now();
      await assert.rejects(
        socksConnect({
          proxyHost: '127.0.0.1',
          proxyPort: net.gateway.socksPorts[0]!,
          user: lease.user,
          pwd: 'still-wrong',
          host: '127.0.0.1',
          port: target.port,
        }),
      );
      return Date.now() - started;
    };
    for (let i = 0; i < 3; i++) await attempt();
    assert.ok((await attempt()) >= 350, 'slowed down');
    // A success clears the address's record.
    (
      await socksConnect({
        proxyHost: '127.0.0.1',
        proxyPort: net.gateway.socksPorts[0]!,
        user: lease.user,
        pwd: lease.pwd,
        host: '127.0.0.1',
        port: target.port,
      })
    ).destroy();
    assert.ok((await attempt()) < 300, 'first failure after a success is answered at once');
  });

  test('unreachable target: connection refused (0x05), counted as a failure', async () => {
    assert.ok(await settle());
    const before = net.meter.get(lease.leaseId);
    // A port nobody listens on: take one from a closed server.
    const { createServer } = await import('node:net');
    const tmp = createServer();
    await new Promise<void>((r) => tmp.listen(0, '127.0.0.1', r));
    const deadPort = (tmp.address() as import('node:net').AddressInfo).port;
    await new Promise<void>((r) => tmp.close(() => r()));
    const r = await curl([
      '--socks5-hostname',
      `${lease.user}:${lease.pwd}@127.0.0.1:${net.gateway.socksPorts[0]}`,
      `http://127.0.0.1:${deadPort}/`,
    ]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Connection refused|SOCKS5 connection to 127\.0\.0\.1\. \(5\)/i);
    await assert.rejects(
      socksConnect({
        proxyHost: '127.0.0.1',
        proxyPort: net.gateway.socksPorts[1]!,
        user: lease.user,
        pwd: lease.pwd,
        host: '127.0.0.1',
        port: deadPort,
      }),
      (err: { reply?: number }) => err.reply === 0x05,
    );
    const after = net.meter.get(lease.leaseId);
    assert.equal(after.reqs - before.reqs, 2);
    assert.equal(after.fails - before.fails, 2);
  });

  test('unresolvable name: host unreachable (0x04)', async () => {
    await assert.rejects(
      socksConnect({
        proxyHost: '127.0.0.1',
        proxyPort: net.gateway.socksPorts[0]!,
        user: lease.user,
        pwd: lease.pwd,
        host: 'no-such-host.invalid',
        port: 80,
      }),
      (err: { reply?: number }) => err.reply === 0x04,
    );
  });

  test('default agent refuses loopback and private targets, also after resolution', async () => {
    assert.ok(await settle());
    const before = net.meter.get(strictLease.leaseId);
    const creds = `${strictLease.user}:${strictLease.pwd}@127.0.0.1:${net.gateway.socksPorts[0]}`;
    const viaName = await curl(['--socks5-hostname', creds, `http://localhost:${target.port}/`]);
    assert.notEqual(viaName.code, 0);
    assert.match(viaName.stderr, NOT_ALLOWED);
    const viaIp = await curl(['--socks5-hostname', creds, `http://10.1.2.3:${target.port}/`]);
    assert.match(viaIp.stderr, NOT_ALLOWED);
    const viaIntranet = await curl(['--socks5-hostname', creds, `http://intranet.test:${target.port}/`]);
    assert.match(viaIntranet.stderr, NOT_ALLOWED);
    await assert.rejects(
      socksConnect({
        proxyHost: '127.0.0.1',
        proxyPort: net.gateway.socksPorts[0]!,
        user: strictLease.user,
        pwd: strictLease.pwd,
        host: 'intranet.test',
        port: 80,
      }),
      (err: { reply?: number }) => err.reply === 0x02,
    );
    await assert.rejects(
      socksConnect({
        proxyHost: '127.0.0.1',
        proxyPort: net.gateway.socksPorts[0]!,
        user: strictLease.user,
        pwd: strictLease.pwd,
        host: '127.0.0.1',
        port: target.port,
      }),
      (err: { reply?: number }) => err.reply === 0x02,
    );
    const after = net.meter.get(strictLease.leaseId);
    assert.equal(after.fails - before.fails, 5);
  });

  test('restrictPorts: any other port is refused with 0x02, the listed one works', async () => {
    const portLease = buildLease('agent-ports');
    net.directory.upsert(portLease);
    const agent = await net.addAgent('key-ports', { restrictPorts: [target.port] });
    const through = (port: number) =>
      socksConnect({
        proxyHost: '127.0.0.1',
        proxyPort: net.gateway.socksPorts[0]!,
        user: portLease.user,
        pwd: portLease.pwd,
        host: '127.0.0.1',
        port,
      });
    await assert.rejects(through(target.port + 1), (err: { reply?: number }) => err.reply === 0x02);
    (await through(target.port)).destroy();
    await agent.close();
  });

  test('unsupported command answers 0x07', async () => {
    const { connect } = await import('node:net');
    const { encodeGreeting, encodeUserPass, encodeRequest } = await import('./protocol/socks5.ts');
    const s = connect({ host: '127.0.0.1', port: net.gateway.socksPorts[0]! });
    const got = await new Promise<Buffer>((resolve) => {
      const parts: Buffer[] = [];
      s.on('data', (d: Buffer) => parts.push(d));
      s.on('close', () => resolve(Buffer.concat(parts)));
      s.write(
        Buffer.concat([
          encodeGreeting([2]),
          encodeUserPass(lease.user, lease.pwd),
          encodeRequest(2, '1.2.3.4', 80),
        ]),
      );
      s.end();
    });
    // method selection (2) + auth status (2) + reply (10)
    assert.equal(got[4 + 1], 0x07);
  });

  test('a client that sends its request with the handshake, before any answer, gets the page', {
    timeout: 10_000,
  }, async () => {
    // Optimistic clients pipeline everything: the bytes after CONNECT wait for the relay.
    const got = await pipelined(
      net.gateway.socksPorts[1]!,
      lease,
      target.port,
      'GET /bytes/3000 HTTP/1.0\r\nHost: x\r\n\r\n',
      false,
    );
    // method selection (2) + auth status (2) + reply (10), then the page
    assert.equal(got[4 + 1], 0x00, 'CONNECT succeeded');
    assertPatternBytes(body(got.subarray(14)), 3000);
  });

  test('a client that half-closes right after its pipelined request still gets the whole answer', {
    timeout: 10_000,
  }, async () => {
    const { createServer } = await import('node:net');
    // Answers with what it read, once the client's end of file arrives.
    const echo = createServer({ allowHalfOpen: true }, (t) => {
      const parts: Buffer[] = [];
      t.on('data', (d: Buffer) => parts.push(d));
      t.on('end', () => t.end(Buffer.concat(parts)));
      t.on('error', () => {});
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    try {
      const port = (echo.address() as import('node:net').AddressInfo).port;
      // Everything at once, then our end of file, before the gateway can answer the CONNECT.
      const got = await pipelined(net.gateway.socksPorts[2]!, lease, port, 'the whole request', true);
      assert.equal(got[4 + 1], 0x00, 'CONNECT succeeded');
      assert.equal(
        got.subarray(14).toString(),
        'the whole request',
        'the target saw the request and our FIN',
      );
    } finally {
      await new Promise<void>((r) => echo.close(() => r()));
    }
  });

  test('dial: a relayed stream through an agent for probes, cleaned up after use', async () => {
    const stream = await net.gateway.dial('agent-1', '127.0.0.1', target.port);
    const resp = await new Promise<Buffer>((resolve, reject) => {
      const parts: Buffer[] = [];
      stream.on('data', (d: Buffer) => parts.push(d));
      stream.on('end', () => resolve(Buffer.concat(parts)));
      stream.on('error', reject);
      stream.end('GET /bytes/3000 HTTP/1.0\r\nHost: x\r\n\r\n');
    });
    assertPatternBytes(body(resp), 3000);
    stream.destroy();
    assert.ok(
      await waitFor(() => net.gateway.tunnel('agent-1')?.streams.size === 0, { timeoutMs: 2000 }),
      'stream released',
    );
    await assert.rejects(
      net.gateway.dial('agent-strict', '10.0.0.1', 80),
      (e: { reply?: number }) => e.reply === 0x02,
    );
    await assert.rejects(net.gateway.dial('nobody', '127.0.0.1', 80), /agent offline/);
  });

  test('metrics and health', async () => {
    const base = `http://127.0.0.1:${net.gateway.metricsPort}`;
    const health = await fetch(`${base}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok', node: 'test-node', agentsOnline: 2 });
    const scraped = await (await fetch(`${base}/metrics`)).text();
    assert.match(scraped, /gateway_relayed_bytes_total\{direction="down",node="test-node"\} \d+/);
    assert.match(scraped, /gateway_socks_requests_total\{result="ok",node="test-node"\} \d+/);
    const text = await net.gateway.metrics.registry.metrics();
    assert.match(text, /gateway_agents_online\{node="test-node"\} 2/);
    assert.match(text, /gateway_socks_handshake_failures_total\{reason="bad-credentials"/);
  });
});
