import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type AgentHandle, startAgent } from '@pm/agent';
import { createMemoryRegistry } from '../policy/memory.ts';
import { assertPatternBytes, type HttpTarget, startHttpTarget } from '../session/harness.testkit.ts';
import { startTunnelServer, type TunnelServer } from '../tunnel/server.ts';
import { downloadThroughAgent, parseHttpTarget, probeThroughAgent } from './http-probe.ts';
import { createMuxDialer, type MuxDialer } from './mux-dialer.ts';

let tunnels: TunnelServer;
let agent: AgentHandle;
let target: HttpTarget;
let dialer: MuxDialer;

before(async () => {
  target = await startHttpTarget();
  tunnels = await startTunnelServer({
    host: '127.0.0.1',
    port: 0,
    plaintextLoopback: true,
    registry: createMemoryRegistry({ 'key-1': 'agent-1' }),
    handshakeTimeoutMs: 5000,
  });
  agent = startAgent({
    gateway: { host: '127.0.0.1', port: tunnels.port },
    key: 'key-1',
    plaintext: true,
    allowLoopback: true,
  });
  await agent.waitConnected(5000);
  dialer = createMuxDialer((id) => tunnels.get(id), { openTimeoutMs: 3000 });
});
after(async () => {
  await dialer.close();
  await agent.close();
  await tunnels.close();
  await target.close();
});

test('probe and download through a real agent tunnel', async () => {
  const probe = await probeThroughAgent(
    dialer,
    'agent-1',
    parseHttpTarget(`http://127.0.0.1:${target.port}/bytes/10`),
    3000,
  );
  assert.equal(probe.ok, true, probe.error);
  const speed = await downloadThroughAgent(
    dialer,
    'agent-1',
    parseHttpTarget(`http://127.0.0.1:${target.port}/bytes/1000000`),
    { timeoutMs: 5000, maxBytes: 5_000_000 },
  );
  assert.equal(speed.ok, true, speed.error);
  assert.equal(speed.bytes, 1_000_000);
  assert.ok(speed.bps > 0);
});

test('the stream carries exact bytes both ways', async () => {
  const s = await dialer.dial('agent-1', '127.0.0.1', target.port);
  const parts: Buffer[] = [];
  s.on('data', (d: Buffer) => parts.push(d));
  const done = new Promise((r) => s.on('end', r));
  s.write('GET /bytes/70000 HTTP/1.0\r\nHost: x\r\n\r\n');
  await done;
  const all = Buffer.concat(parts);
  assertPatternBytes(all.subarray(all.indexOf('\r\n\r\n') + 4), 70000);
  s.destroy();
});

test('unknown agent, refused target and many parallel dials', async () => {
  await assert.rejects(dialer.dial('nobody', '127.0.0.1', target.port), /offline/);
  await assert.rejects(dialer.dial('agent-1', '127.0.0.1', 1), /SOCKS reply/);
  const results = await Promise.all(
    Array.from({ length: 20 }, () =>
      probeThroughAgent(dialer, 'agent-1', parseHttpTarget(`http://127.0.0.1:${target.port}/bytes/1`), 3000),
    ),
  );
  assert.ok(
    results.every((r) => r.ok),
    JSON.stringify(results.filter((r) => !r.ok)),
  );
});
