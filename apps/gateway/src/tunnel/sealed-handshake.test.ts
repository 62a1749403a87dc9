import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { once } from 'node:events';
import { after, test } from 'node:test';
import tls from 'node:tls';
import { waitFor } from '../session/harness.testkit.ts';
import type { TunnelTransport } from './mux.ts';
import { connectTcp, RawServer, type RawSocket } from './raw-tcp.ts';
import { type HandshakeResult, sealedAccept, sealedConnect } from './sealed-handshake.ts';
import { RecordError, Sealer, sealedRecordsAddon } from './sealed-records.ts';
import { SealedSocket } from './sealed-socket.ts';
import { makeSelfSignedCert } from './self-signed.ts';

const native = sealedRecordsAddon();
const pem = makeSelfSignedCert();
const context = tls.createSecureContext({ cert: pem.cert, key: pem.key });
const servers: RawServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

function dialRaw(port: number): Promise<RawSocket> {
  return new Promise((resolve, reject) => {
    const s = connectTcp('127.0.0.1', port, (err) => (err ? reject(err) : resolve(s)));
  });
}

/** Closes the agent's end, waits for the gateway to see it, closes the gateway's. */
async function closePair(agent: TunnelTransport, gateway: TunnelTransport): Promise<void> {
  const ended = once(gateway, 'end');
  agent.destroy();
  await ended;
  gateway.destroy();
}

async function connectPair(serverNative: typeof native, agentNative: typeof native, ca = pem.cert) {
  let accepted!: Promise<HandshakeResult>;
  const server = new RawServer((raw) => {
    accepted = sealedAccept(raw, context, serverNative);
    accepted.catch(() => raw.destroy());
  });
  servers.push(server);
  const port = await server.listen(0, '127.0.0.1');
  const raw = await dialRaw(port);
  const agent = sealedConnect(raw, { ca, servername: 'localhost' }, agentNative).catch((err: Error) => {
    raw.destroy();
    throw err;
  });
  return { agent: await agent, gateway: await accepted };
}

function collect(t: TunnelTransport): { bytes: () => Buffer } {
  const got: Buffer[] = [];
  if (t.readInto) t.readInto((c) => got.push(Buffer.from(c)));
  else t.on('data', (c: Buffer) => got.push(c));
  return { bytes: () => Buffer.concat(got) };
}

async function exchange(agent: TunnelTransport, gateway: TunnelTransport): Promise<void> {
  const up = crypto.randomBytes(300_000);
  const down = crypto.randomBytes(200_000);
  const atGateway = collect(gateway);
  const atAgent = collect(agent);
  // The gateway speaks first: its bytes must wait, unharmed, until the agent's first record came.
  for (let i = 0; i < down.length; i += 70_000) gateway.write(down.subarray(i, i + 70_000));
  agent.cork();
  for (let i = 0; i < up.length; i += 1000) agent.write(up.subarray(i, i + 1000));
  agent.uncork();
  assert.ok(
    await waitFor(() => atGateway.bytes().length >= up.length && atAgent.bytes().length >= down.length, 5000),
  );
  assert.deepEqual(atGateway.bytes(), up);
  assert.deepEqual(atAgent.bytes(), down);
}

test('with the addon on both sides the tunnel hands over to sealed records, both ways intact', async () => {
  assert.ok(native, 'the addon is built by npm install');
  const { agent, gateway } = await connectPair(native, native);
  assert.ok(agent instanceof SealedSocket);
  assert.ok(gateway instanceof SealedSocket);
  await exchange(agent, gateway);
  await closePair(agent, gateway);
});

test('where either side lacks the addon the tunnel keeps TLS records', async () => {
  for (const [serverNative, agentNative] of [
    [native, null],
    [null, native],
  ] as const) {
    const { agent, gateway } = await connectPair(serverNative, agentNative);
    assert.ok(agent instanceof tls.TLSSocket && gateway instanceof tls.TLSSocket);
    assert.equal(agent.alpnProtocol, 'pm-tunnel/1');
    await exchange(agent, gateway);
    await closePair(agent, gateway);
  }
});

test('an agent that does not trust the certificate never gets a tunnel', async () => {
  const other = makeSelfSignedCert();
  await assert.rejects(connectPair(native, native, other.cert), /certificate/);
});

/** A sealed socket on the accepting side of a loopback connection, and the raw socket that dialed it. */
async function sealedAndRaw(holdWrites: boolean) {
  assert.ok(native, 'the addon is built by npm install');
  const keys = { sendKey: crypto.randomBytes(16), sendIv: crypto.randomBytes(12) };
  let sealed!: SealedSocket;
  const errors: Error[] = [];
  const got: Buffer[] = [];
  const server = new RawServer((raw) => {
    sealed = new SealedSocket(
      raw,
      native,
      { ...keys, recvKey: keys.sendKey, recvIv: keys.sendIv },
      holdWrites,
    );
    sealed.on('error', (err: Error) => errors.push(err));
    sealed.readInto((c) => got.push(Buffer.from(c)));
  });
  servers.push(server);
  const port = await server.listen(0, '127.0.0.1');
  const raw = await dialRaw(port);
  assert.ok(await waitFor(() => sealed !== undefined, 2000));
  // The dialing side seals with the same keys (one direction's keys serve both ways here).
  const sealer = new Sealer(native, keys.sendKey, keys.sendIv);
  return { sealed, raw, sealer, errors, got };
}

test("a sealed socket that must wait writes nothing until the peer's first record came", async () => {
  const { sealed, raw, sealer, got } = await sealedAndRaw(true);
  const received: Buffer[] = [];
  raw.readInto((c) => received.push(Buffer.from(c)));
  sealed.write(Buffer.from('held'));
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(received.length, 0);
  const hello = Buffer.alloc(100);
  raw.write(hello.subarray(0, sealer.seal([Buffer.from('hello')], hello, 0)));
  assert.ok(await waitFor(() => received.length > 0, 2000));
  assert.equal(Buffer.concat(got).toString(), 'hello');
  assert.equal(Buffer.concat(received).readUInt32BE(0), 4 + 16);
  raw.destroy();
  sealed.destroy();
});

test('a forged record closes the sealed socket with an error', async () => {
  const { sealed, raw, sealer, errors, got } = await sealedAndRaw(false);
  const records = Buffer.alloc(200);
  const first = sealer.seal([Buffer.from('genuine')], records, 0);
  const second = sealer.seal([Buffer.from('forged!')], records, first);
  records[first + 6] ^= 0x20;
  raw.write(records.subarray(0, first + second));
  assert.ok(await waitFor(() => errors.length > 0, 2000));
  assert.ok(errors[0] instanceof RecordError);
  assert.deepEqual(Buffer.concat(got).toString(), 'genuine');
  assert.ok(sealed.destroyed);
  raw.destroy();
});
