import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@pm/testkit';
import { DEFAULT_WINDOW } from '@pm/tunnel';
import { freePort } from '../free-port.ts';
import { type SocksClientError, socksConnect } from '../protocol/client.ts';
import {
  assertPatternBytes,
  buildLease,
  curl,
  type HttpTarget,
  startHttpTarget,
  startTestNetwork,
  type TestNetwork,
} from './harness.testkit.ts';
import { body } from './raw-client.testkit.ts';

const AGENT_MAIN = fileURLToPath(new URL('../../../agent/src/main.ts', import.meta.url));

/** GET over a SOCKS socket; resolves with every byte received until the connection ends or breaks. */
function readAll(socket: net.Socket, request: string): Promise<{ data: Buffer; error: boolean }> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let error = false;
    socket.on('data', (d: Buffer) => parts.push(d));
    socket.on('error', () => {
      error = true;
    });
    socket.on('close', () => resolve({ data: Buffer.concat(parts), error }));
    socket.write(request);
  });
}

const get = (path: string) => `GET ${path} HTTP/1.0\r\nHost: t\r\n\r\n`;

/** How far the directory's clock runs ahead of the machine's: a test passes a lease's end by moving it. */
let skewMs = 0;

/** Resolves once `socket` has received its first bytes: a transfer is under way. */
function firstBytes(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => socket.once('data', () => resolve()));
}

describe('whitelist, revocation, sharing and faults', () => {
  let target: HttpTarget;
  let network: TestNetwork;
  const settle = () => waitFor(() => network.gateway.openConnections() === 0, { timeoutMs: 5000 });

  /** The tunnel's certificate, for the agent CLI's `--ca`. */
  let caFile: string;

  before(async () => {
    target = await startHttpTarget();
    network = await startTestNetwork({
      keys: { 'key-a': 'agent-a', 'key-b': 'agent-b' },
      tls: true,
      now: () => Date.now() + skewMs,
    });
    await network.addAgent('key-a');
    caFile = join(mkdtempSync(join(tmpdir(), 'faults-ca-')), 'ca.pem');
    writeFileSync(caFile, network.tls!.cert);
  });
  after(async () => {
    await network.close();
    await target.close();
    rmSync(dirname(caFile), { recursive: true, force: true });
  });

  const connectVia = (lease: { user: string; pwd: string }, port = network.gateway.socksPorts[0]!) =>
    socksConnect({
      proxyHost: '127.0.0.1',
      proxyPort: port,
      user: lease.user,
      pwd: lease.pwd,
      host: '127.0.0.1',
      port: target.port,
    });

  test('no-auth port: 127.0.0.2 refused, whitelisted 127.0.0.3 accepted, changes apply within 2 s', async () => {
    const authPort = await freePort();
    const lease = buildLease('agent-a', { authPort, whitelist: ['127.0.0.3', '127.0.1.0/24'] });
    network.directory.upsert(lease);
    assert.ok(
      await waitFor(() => network.gateway.authPorts().includes(authPort), { timeoutMs: 2000 }),
      'listening on the auth port',
    );
    const url = `http://127.0.0.1:${target.port}/bytes/3000`;
    const refused = await curl([
      '--interface',
      '127.0.0.2',
      '--socks5-hostname',
      `127.0.0.1:${authPort}`,
      url,
    ]);
    assert.notEqual(refused.code, 0);
    const ok = await curl(['--interface', '127.0.0.3', '--socks5-hostname', `127.0.0.1:${authPort}`, url]);
    assert.equal(ok.code, 0, ok.stderr);
    assertPatternBytes(ok.stdout, 3000);
    const own = (localAddress: string) =>
      socksConnect({
        proxyHost: '127.0.0.1',
        proxyPort: authPort,
        localAddress,
        host: '127.0.0.1',
        port: target.port,
      });
    await assert.rejects(own('127.0.0.2'), (e: SocksClientError) => e.stage === 'method');
    (await own('127.0.1.77')).destroy(); // CIDR entry
    // The whitelist changes: 127.0.0.2 in, 127.0.0.3 out.
    network.directory.upsert({ ...lease, whitelist: ['127.0.0.2'] });
    const deadline = Date.now() + 2000;
    (await own('127.0.0.2')).destroy();
    await assert.rejects(own('127.0.0.3'), (e: SocksClientError) => e.stage === 'method');
    assert.ok(Date.now() <= deadline);
    // Credentials of a no-auth lease are not needed there, but the auth ports refuse no-auth clients.
    await assert.rejects(
      socksConnect({
        proxyHost: '127.0.0.1',
        proxyPort: network.gateway.socksPorts[0]!,
        host: '127.0.0.1',
        port: 1,
      }),
      (e: SocksClientError) => e.stage === 'method',
    );
    network.directory.remove(lease.leaseId);
    await waitFor(() => !network.gateway.authPorts().includes(authPort), {
      timeoutMs: 2000,
      what: 'auth port closed',
    });
  });

  test('a revoked lease stops working within 2 s, open connections included', async () => {
    const lease = buildLease('agent-a');
    network.directory.upsert(lease);
    const socket = await connectVia(lease);
    const flowing = firstBytes(socket);
    const transfer = readAll(socket, get('/slow/50000000'));
    await flowing;
    const revokedAt = Date.now();
    network.directory.remove(lease.leaseId);
    const result = await transfer;
    assert.ok(Date.now() - revokedAt < 2000, 'connection closed within 2 s');
    assert.ok(result.data.length < 50_000_000);
    await assert.rejects(connectVia(lease), (e: SocksClientError) => e.stage === 'auth');
    // A lease whose end passes is refused even without a revocation event: the directory's
    // clock is moved past it.
    const ending = buildLease('agent-a', { untilMs: Date.now() + 60_000 });
    network.directory.upsert(ending);
    (await connectVia(ending)).destroy();
    skewMs = 61_000;
    try {
      await assert.rejects(connectVia(ending), (e: SocksClientError) => e.stage === 'auth');
    } finally {
      skewMs = 0;
    }
  });

  test('a shared agent serves four customers at once, each metered separately and exactly', async () => {
    assert.ok(await settle());
    const leases = [1, 2, 3, 4].map(() => buildLease('agent-a'));
    for (const l of leases) network.directory.upsert(l);
    const sizes = [1_000_000, 2_000_000, 3_000_000, 4_000_000];
    const results = await Promise.all(
      leases.map(async (l, i) => {
        const s = await connectVia(l, network.gateway.socksPorts[i]!);
        return readAll(s, get(`/bytes/${sizes[i]}`));
      }),
    );
    assert.ok(await settle());
    for (let i = 0; i < 4; i++) {
      const r = results[i]!;
      assertPatternBytes(body(r.data), sizes[i]!);
      const c = network.meter.get(leases[i]!.leaseId);
      assert.deepEqual(c, {
        reqs: 1,
        fails: 0,
        agentFails: 0,
        up: Buffer.byteLength(get(`/bytes/${sizes[i]}`)),
        down: r.data.length,
      });
    }
  });

  test('a slow customer does not make the gateway buffer without bound', async () => {
    const lease = buildLease('agent-a');
    network.directory.upsert(lease);
    const socket = await connectVia(lease);
    try {
      socket.pause();
      socket.write(get('/bytes/30000000'));
      await sleep(500); // sleeps: the relay runs into the paused customer's buffers; the bound must hold meanwhile
      const buffered = network.gateway.bufferedBytes();
      assert.ok(
        buffered <= DEFAULT_WINDOW + 256 * 1024,
        `gateway buffers ${buffered} bytes for one paused customer`,
      );
      // Kernel socket buffers take a few MB; after that the flow must stop, not grow in user space.
      // The meter hears of relayed bytes once a second (meterFlushMs), so the flow has stopped once
      // a whole interval passes without a change; then it must stay stopped.
      const downNow = () => network.meter.get(lease.leaseId).down;
      let down = downNow();
      const deadline = Date.now() + 10_000;
      for (;;) {
        await sleep(1200); // sleeps: the flow has stopped when a whole meter interval (1 s) passes unchanged
        const now = downNow();
        if (now === down) break;
        assert.ok(Date.now() < deadline, `still relaying to a paused customer after 10 s (${now} bytes)`);
        down = now;
      }
      await sleep(1200); // sleeps: no bytes may be relayed during one more meter interval
      assert.equal(downNow(), down, 'no more bytes relayed while the customer is paused');
      assert.ok(down < 20_000_000, `relayed ${down} bytes to a paused customer`);
      // Reading resumes: the rest arrives.
      let got = 0;
      socket.on('data', (d: Buffer) => {
        got += d.length;
      });
      socket.resume();
      assert.ok(await waitFor(() => got > 30_000_000, { timeoutMs: 10_000 }), `got ${got}`);
    } finally {
      socket.destroy();
    }
  });

  test('agent killed mid-transfer: customer closed, failure counted, agent reconnects and serves', async () => {
    const lease = buildLease('agent-b');
    network.directory.upsert(lease);
    const spawnAgent = (): ChildProcess =>
      spawn(
        process.execPath,
        [
          AGENT_MAIN,
          '--gateway',
          `127.0.0.1:${network.gateway.tunnelPort}`,
          '--ca',
          caFile,
          '--allow-loopback',
        ],
        { env: { ...process.env, AGENT_KEY: 'key-b' }, stdio: 'ignore' },
      );
    let child = spawnAgent();
    try {
      assert.ok(
        await waitFor(() => network.gateway.agentsOnline().includes('agent-b'), { timeoutMs: 10_000 }),
        'agent b online',
      );
      const socket = await connectVia(lease);
      const flowing = firstBytes(socket);
      const transfer = readAll(socket, get('/slow/50000000'));
      await flowing;
      child.kill('SIGKILL');
      const result = await transfer;
      assert.ok(result.data.length < 50_000_000, 'transfer cut short');
      assert.ok(await settle(), 'customer connection closed');
      assert.deepEqual(
        { reqs: network.meter.get(lease.leaseId).reqs, fails: network.meter.get(lease.leaseId).fails },
        { reqs: 1, fails: 1 },
      );
      assert.ok(
        await waitFor(() => !network.gateway.agentsOnline().includes('agent-b'), { timeoutMs: 5000 }),
        'agent b offline',
      );
      child = spawnAgent();
      assert.ok(
        await waitFor(() => network.gateway.agentsOnline().includes('agent-b'), { timeoutMs: 10_000 }),
        'agent b back',
      );
      const again = await readAll(await connectVia(lease), get('/bytes/1000'));
      assertPatternBytes(body(again.data), 1000);
    } finally {
      child.kill('SIGKILL');
    }
  });

  test('gateway restart: agents come back and serve', async () => {
    const lease = buildLease('agent-a');
    network.directory.upsert(lease);
    await network.restartGateway();
    await waitFor(() => network.gateway.agentsOnline().includes('agent-a'), {
      timeoutMs: 5000,
      what: 'agent back',
    });
    const r = await readAll(await connectVia(lease), get('/bytes/2000'));
    assertPatternBytes(body(r.data), 2000);
  });

  test("agent offline: general failure, counted as the agent's", async () => {
    const lease = buildLease('agent-nobody');
    network.directory.upsert(lease);
    await assert.rejects(connectVia(lease), (e: SocksClientError) => e.reply === 0x01);
    assert.deepEqual(network.meter.get(lease.leaseId), { reqs: 1, fails: 1, agentFails: 1, up: 0, down: 0 });
  });
});
