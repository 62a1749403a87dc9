import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { test } from 'node:test';
import { connectTcp, RawServer, type RawSocket } from './raw-tcp.ts';

/** Bytes in which every 4-byte word holds its own offset, so a loss, a reorder or an overwrite shows. */
function pattern(bytes: number): Buffer {
  const b = Buffer.alloc(bytes);
  for (let i = 0; i + 4 <= bytes; i += 4) b.writeUInt32BE(i, i);
  return b;
}

/** A net server on loopback; `onSocket` gets each accepted socket. */
async function netServer(onSocket: (s: net.Socket) => void): Promise<{ port: number; close: () => void }> {
  const server = net.createServer({ allowHalfOpen: true }, onSocket);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

function connected(port: number, ip = '127.0.0.1'): Promise<RawSocket> {
  return new Promise((resolve, reject) => {
    const s = connectTcp(ip, port, (err) => (err ? reject(err) : resolve(s)));
  });
}

/** Collects what the socket reads (copied: a chunk is valid only during the call) until its 'end'. */
function readAll(socket: RawSocket): Promise<Buffer> {
  const parts: Buffer[] = [];
  const ended = once(socket, 'end');
  socket.readInto((c) => parts.push(Buffer.from(c)));
  return ended.then(() => Buffer.concat(parts));
}

test('a dialed socket sends and receives every byte, half-closes each way, then closes once', async () => {
  const up = pattern(3 * 1024 * 1024);
  const down = pattern(2 * 1024 * 1024 + 12);
  let serverGot: Promise<Buffer> = Promise.resolve(Buffer.alloc(0));
  const srv = await netServer((s) => {
    const parts: Buffer[] = [];
    s.on('data', (c) => parts.push(c));
    serverGot = once(s, 'end').then(() => Buffer.concat(parts));
    s.end(down);
  });
  const socket = await connected(srv.port);
  let closes = 0;
  socket.on('close', () => closes++);
  const received = readAll(socket);
  let called = false;
  socket.write(up, () => {
    called = true;
  });
  assert.deepEqual(await received, down);
  assert.equal(socket.destroyed, false, 'half-open: our side stays open after the peer FIN');
  socket.end();
  await once(socket, 'close');
  assert.equal(called, true, 'the write callback came');
  assert.equal(socket.writableLength, 0);
  assert.deepEqual(await serverGot, up);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(closes, 1);
  srv.close();
});

test('a write the kernel cannot take at once is queued, counted and drained', async () => {
  let peer: net.Socket | undefined;
  const srv = await netServer((s) => {
    peer = s;
    s.pause();
  });
  const socket = await connected(srv.port);
  const big = pattern(16 * 1024 * 1024);
  let done = false;
  const accepted = socket.write(big, () => {
    done = true;
  });
  assert.equal(accepted, false, 'write asks the caller to wait');
  assert.ok(socket.writableLength > 0 && socket.writableLength <= big.length);
  assert.equal(done, false);
  const drained = once(socket, 'drain');
  const parts: Buffer[] = [];
  peer!.on('data', (c) => parts.push(c));
  peer!.resume();
  await drained;
  assert.equal(done, true);
  assert.equal(socket.writableLength, 0);
  socket.end();
  await once(peer!, 'end');
  assert.deepEqual(Buffer.concat(parts), big);
  socket.destroy();
  srv.close();
});

test('writes done inside the call and queued writes on two sockets in turn keep every byte in order', async () => {
  // A write the kernel takes at once hands its request to the next write; one that is queued keeps
  // its own until the callback. Interleaving both kinds on two sockets shows a request shared wrongly.
  const peers: net.Socket[] = [];
  const got: Promise<Buffer>[] = [];
  const srv = await netServer((s) => {
    peers.push(s);
    const parts: Buffer[] = [];
    s.on('data', (c) => parts.push(c));
    got.push(once(s, 'end').then(() => Buffer.concat(parts)));
  });
  const a = await connected(srv.port);
  const b = await connected(srv.port);
  const sent: Buffer[][] = [[], []];
  let callbacks = 0;
  let writes = 0;
  for (let i = 0; i < 40; i++) {
    for (const [k, s] of [a, b].entries()) {
      const piece = i % 4 === 3 ? pattern(3 * 1024 * 1024) : Buffer.from(`small ${k} ${i};`);
      sent[k]!.push(piece);
      writes++;
      s.write(piece, () => callbacks++);
    }
    if (i % 8 === 7) await new Promise((r) => setImmediate(r));
  }
  a.end();
  b.end();
  const [gotA, gotB] = await Promise.all([got[0], got[1]]);
  assert.deepEqual(gotA, Buffer.concat(sent[0]!));
  assert.deepEqual(gotB, Buffer.concat(sent[1]!));
  assert.equal(callbacks, writes, 'every write called back once');
  a.destroy();
  b.destroy();
  srv.close();
});

test('a refused connect reports ECONNREFUSED and closes the socket', async () => {
  const srv = await netServer(() => {});
  const { port } = srv;
  srv.close();
  await new Promise((r) => setTimeout(r, 20));
  await assert.rejects(connected(port), (err: NodeJS.ErrnoException) => err.code === 'ECONNREFUSED');
});

test('a reset reaches the peer as ECONNRESET, not as a clean end', async () => {
  const peerError = new Promise<string>((resolve) => {
    void netServer((s) => {
      s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'none'));
      s.on('end', () => resolve('end'));
    }).then(async (srv) => {
      const socket = await connected(srv.port);
      socket.write(Buffer.from('partial'));
      socket.resetAndDestroy();
      await once(socket, 'close');
      srv.close();
    });
  });
  assert.equal(await peerError, 'ECONNRESET');
});

test('the server hands out connections with their peer address, counts them, and reads until FIN', async () => {
  const accepted: RawSocket[] = [];
  const server = new RawServer((s) => accepted.push(s));
  const port = await server.listen(0, '127.0.0.1');
  const client = net.connect({ host: '127.0.0.1', port, localAddress: '127.0.0.3', allowHalfOpen: true });
  await once(client, 'connect');
  while (accepted.length === 0) await new Promise((r) => setTimeout(r, 5));
  const s = accepted[0]!;
  assert.equal(server.connections, 1);
  assert.equal(s.remoteAddress, '127.0.0.3');
  const got = readAll(s);
  client.end('hello');
  assert.equal((await got).toString(), 'hello');
  const answer: Buffer[] = [];
  client.on('data', (c) => answer.push(c));
  const closed = once(s, 'close');
  s.end(Buffer.from('bye'));
  await once(client, 'end');
  await closed;
  assert.equal(Buffer.concat(answer).toString(), 'bye');
  assert.equal(server.connections, 0);
  client.destroy();
  server.close();
});

test('listening on a port in use fails with EADDRINUSE', async () => {
  const srv = await netServer(() => {});
  const server = new RawServer(() => {});
  await assert.rejects(
    server.listen(srv.port, '127.0.0.1'),
    (err: NodeJS.ErrnoException) => err.code === 'EADDRINUSE',
  );
  srv.close();
});

test('destroying with a write queued calls its callback and closes once', async () => {
  const srv = await netServer((s) => s.pause());
  const socket = await connected(srv.port);
  let called = 0;
  socket.write(pattern(16 * 1024 * 1024), () => called++);
  assert.ok(socket.writableLength > 0);
  let closes = 0;
  socket.on('close', () => closes++);
  socket.destroy();
  await once(socket, 'close');
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(called, 1, 'the held buffer is given back');
  assert.equal(closes, 1);
  srv.close();
});

test('ending after the peer FIN delivers every byte and the FIN, with or without writes queued', async () => {
  for (const size of [100, 16 * 1024 * 1024]) {
    let peer: net.Socket | undefined;
    const srv = await netServer((s) => {
      peer = s;
      s.pause();
      s.end();
    });
    const socket = await connected(srv.port);
    await readAll(socket);
    const data = pattern(size);
    const closed = once(socket, 'close');
    socket.end(data);
    const parts: Buffer[] = [];
    peer!.on('data', (c) => parts.push(c));
    const ended = once(peer!, 'end');
    peer!.resume();
    await ended;
    await closed;
    assert.deepEqual(Buffer.concat(parts), data, `${size} bytes arrive whole`);
    srv.close();
  }
});
