import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { startGateway } from './gateway.ts';
import { createMemoryDirectory, createMemoryMeter, createMemoryRegistry } from './policy/memory.ts';

const listenOn = (server: net.Server, port: number) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
  });

test('a SOCKS port in use fails the start and leaves no listener behind', async () => {
  const busy = net.createServer();
  const busyPort = await listenOn(busy, 0);
  const probe = net.createServer();
  const tunnelPort = await listenOn(probe, 0);
  await new Promise<void>((r) => probe.close(() => r()));
  try {
    await assert.rejects(
      startGateway({
        nodeId: 'n1',
        host: '127.0.0.1',
        tunnelPort,
        socksPorts: [0, busyPort],
        plaintextTunnel: true,
        directory: createMemoryDirectory([]),
        meter: createMemoryMeter(),
        registry: createMemoryRegistry({}),
        handshakeTimeoutMs: 1000,
      }),
      /EADDRINUSE/,
    );
    // The tunnel endpoint was closed again: its port can be bound.
    const again = net.createServer();
    assert.equal(await listenOn(again, tunnelPort), tunnelPort);
    await new Promise<void>((r) => again.close(() => r()));
  } finally {
    busy.close();
  }
});

const seams = () => ({
  nodeId: 'n1',
  socksPorts: [0],
  directory: createMemoryDirectory([]),
  meter: createMemoryMeter(),
  registry: createMemoryRegistry({}),
  handshakeTimeoutMs: 1000,
});

test('without a certificate the tunnel is refused, and plaintext only on a loopback address', async () => {
  await assert.rejects(
    startGateway({ ...seams(), host: '127.0.0.1', tunnelPort: 0 }),
    /the agent tunnel needs TLS: a certificate and key/,
  );
  await assert.rejects(
    startGateway({
      ...seams(),
      host: '127.0.0.1',
      tunnelHost: '0.0.0.0',
      tunnelPort: 0,
      plaintextTunnel: true,
    }),
    /plaintext agent tunnel is for loopback only, not 0\.0\.0\.0/,
  );
  const gateway = await startGateway({ ...seams(), host: '127.0.0.1', tunnelPort: 0, plaintextTunnel: true });
  await gateway.close();
});
