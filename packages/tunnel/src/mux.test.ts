import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { waitFor } from '@pm/testkit';
import { encodeAddress } from './address.ts';
import { MAX_CONTROL_FRAME, T_DATA, T_FIN, T_OPEN } from './frames.ts';
import { Mux, type TunnelTransport } from './mux.ts';

/** Two connected sockets over loopback. */
async function socketPair(): Promise<[net.Socket, net.Socket]> {
  // Half-open allowed on both ends, as the gateway's and the agent's sockets are.
  const server = net.createServer({ allowHalfOpen: true });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  const accepted = new Promise<net.Socket>((r) => server.once('connection', r));
  const a = net.connect({ host: '127.0.0.1', port, allowHalfOpen: true });
  const b = await accepted;
  await new Promise<void>((r) => (a.connecting ? a.once('connect', r) : r()));
  server.close();
  return [a, b];
}

/** A TCP server on a free loopback port, each connection handed to `serve` (socket errors ignored). */
interface LoopbackTarget {
  port: number;
  close: () => Promise<void>;
}
async function loopbackTarget(serve: (s: net.Socket) => void): Promise<LoopbackTarget> {
  const server = net.createServer((s) => {
    s.on('error', () => {});
    serve(s);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Resolves when the socket's peer is gone (FIN or close), draining whatever arrives. */
function endOrClose(s: net.Socket): Promise<void> {
  s.on('error', () => {});
  s.on('data', () => {});
  return new Promise((r) => {
    s.once('end', () => r());
    s.once('close', () => r());
  });
}

/** Everything the socket receives until its peer's FIN. */
function readToEnd(s: net.Socket): Promise<Buffer> {
  const parts: Buffer[] = [];
  s.on('data', (d: Buffer) => parts.push(d));
  return new Promise((resolve) => s.once('end', () => resolve(Buffer.concat(parts))));
}

/** Target: echoes everything and half-closes after the client's FIN (to test half-close). */
let echo: net.Server;
let echoPort: number;
const echoSockets = new Set<net.Socket>();
before(async () => {
  echo = net.createServer({ allowHalfOpen: true }, (s) => {
    echoSockets.add(s);
    s.on('close', () => echoSockets.delete(s));
    const parts: Buffer[] = [];
    s.on('data', (d: Buffer) => parts.push(d));
    s.on('end', () => s.end(Buffer.concat(parts)));
    s.on('error', () => {});
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  echoPort = (echo.address() as net.AddressInfo).port;
});
after(() => {
  for (const s of echoSockets) s.destroy();
  return new Promise<void>((r) => echo.close(() => r()));
});

/** A gateway-side and an agent-side Mux; the agent side connects OPENs to the requested loopback port. */
async function muxPair(opts: { window?: number; awaitLocalFin?: boolean } = {}) {
  const [a, b] = await socketPair();
  const gateway = new Mux(a, {
    window: opts.window,
    peerWindow: opts.window,
    onControl: () => {},
  });
  const agent: Mux = new Mux(b, {
    window: opts.window,
    peerWindow: opts.window,
    awaitLocalFin: opts.awaitLocalFin,
    onControl: (type, id, payload) => {
      if (type !== T_OPEN) return;
      const st = agent.accept(id);
      const port = payload.readUInt16BE(payload.length - 2);
      const t = net.connect({ host: '127.0.0.1', port, allowHalfOpen: true });
      t.on('connect', () => {
        agent.answerOpen(st, 0);
        agent.attach(st, t);
      });
      t.on('error', () => agent.answerOpen(st, 5));
    },
  });
  return { gateway, agent };
}

/** Opens a stream through the pair and binds it to one end of a fresh socket pair; returns the other end. */
async function openThrough(
  gateway: Mux,
  port: number,
): Promise<{ customer: net.Socket; inner: net.Socket; code: number }> {
  const [customer, inner] = await socketPair();
  inner.setNoDelay(true);
  const code = await new Promise<number>((resolve) => {
    const st = gateway.open(encodeAddress('127.0.0.1', port), (c) => {
      if (c === 0) gateway.attach(st, inner);
      else inner.destroy();
      resolve(c);
    });
  });
  return { customer, inner, code };
}

/** A megabyte in which every 4-byte word holds its own offset, so a loss or a reorder shows. */
function pattern(bytes: number): Buffer {
  const b = Buffer.alloc(bytes);
  for (let i = 0; i + 4 <= bytes; i += 4) b.writeUInt32BE(i, i);
  return b;
}

/** Sends `payload` from the customer, half-closes, and checks the echo arrives whole before the FIN. */
async function echoRoundTrip(window: number): Promise<void> {
  const { gateway, agent } = await muxPair({ window });
  const { customer, code } = await openThrough(gateway, echoPort);
  assert.equal(code, 0);
  const payload = pattern(1_000_000);
  const got = readToEnd(customer);
  customer.end(payload);
  const back = await got;
  assert.equal(back.length, payload.length, 'bytes echoed before the FIN');
  assert.ok(back.equals(payload), 'echoed bytes equal the payload');
  assert.ok(
    await waitFor(() => gateway.streams.size === 0 && agent.streams.size === 0, { timeoutMs: 2000 }),
    'streams released',
  );
  gateway.destroy();
}

test('half-close: the customer finishes sending and still receives the answer', {
  timeout: 30_000,
}, async () => {
  await echoRoundTrip(64 * 1024);
});

test('a target that closes while its last bytes wait for window still delivers them, then FIN', {
  timeout: 30_000,
}, async () => {
  // With a small window the agent still holds the tail when the target's socket closes both ways.
  for (let i = 0; i < 5; i++) await echoRoundTrip(8 * 1024);
});

/** `bytes` of a stream seeded by `seed`: a word at offset i holds i ^ seed, so bytes of another stream show. */
function seeded(bytes: number, seed: number): Buffer {
  const b = pattern(bytes);
  for (let i = 0; i + 4 <= bytes; i += 4) b.writeUInt32BE((b.readUInt32BE(i) ^ seed) >>> 0, i);
  return b;
}

test('streams sharing the tunnel, one customer slow to read, each get exactly their own bytes', async () => {
  const SIZE = 12_000_000;
  // Each target connection sends its seed, then SIZE bytes seeded by it (more than loopback buffers hold), and closes.
  let next = 0x5a5a0000;
  const source = await loopbackTarget((s) => {
    const seed = next++;
    const head = Buffer.alloc(4);
    head.writeUInt32BE(seed >>> 0, 0);
    s.write(head);
    s.end(seeded(SIZE, seed));
  });
  const port = source.port;
  const { gateway } = await muxPair();
  try {
    const received = await Promise.all(
      [0, 1, 2, 3].map(async (i) => {
        const { customer, code } = await openThrough(gateway, port);
        assert.equal(code, 0);
        // The first customer reads nothing for a while: the gateway's writes to it back up.
        if (i === 0) customer.pause();
        const got = readToEnd(customer);
        if (i === 0) setTimeout(() => customer.resume(), 300);
        return got;
      }),
    );
    for (const data of received) {
      assert.equal(data.length, 4 + SIZE);
      const seed = data.readUInt32BE(0);
      assert.ok(
        data.subarray(4).equals(seeded(SIZE, seed)),
        `stream seeded ${seed.toString(16)} arrived intact`,
      );
    }
  } finally {
    gateway.destroy();
    await source.close();
  }
});

test('a conversation of small messages goes back and forth with nothing else to carry it', async () => {
  // Each message is the only thing in its tunnel read: the write at the end of that read's callback
  // is all that moves it (no later flush comes along). A message lost there stalls the exchange.
  const pong = await loopbackTarget((s) => {
    s.on('data', (d: Buffer) => s.write(Buffer.concat([Buffer.from('re:'), d])));
  });
  const { gateway } = await muxPair();
  try {
    const { customer, code } = await openThrough(gateway, pong.port);
    assert.equal(code, 0);
    for (let i = 0; i < 20; i++) {
      const answer = new Promise<Buffer>((resolve) => customer.once('data', resolve));
      customer.write(`ping ${i}`);
      const timeout = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`no answer to ping ${i}`)), 2000).unref(),
      );
      assert.equal((await Promise.race([answer, timeout])).toString(), `re:ping ${i}`);
    }
    customer.destroy();
  } finally {
    gateway.destroy();
    await pong.close();
  }
});

test('small pieces written at once and bulk ones after the I/O phase keep each stream whole and in order', async () => {
  // One tunnel read may carry a few bytes (written before the callback returns) or many records
  // (written after the loop's I/O phase); four streams mixing both must each echo exactly.
  const { gateway } = await muxPair();
  try {
    const results = await Promise.all(
      [0, 1, 2, 3].map(async (k) => {
        const { customer, code } = await openThrough(gateway, echoPort);
        assert.equal(code, 0);
        const got = readToEnd(customer);
        const sent: Buffer[] = [];
        for (let i = 0; i < 30; i++) {
          const piece = i % 5 === 4 ? pattern(40_000 + k) : Buffer.from(`stream ${k} piece ${i};`);
          sent.push(piece);
          customer.write(piece);
          if (i % 3 === 0) await new Promise((r) => setTimeout(r, 1)); // sleeps: spreads writes over turns so streams interleave
        }
        customer.end();
        return { sent: Buffer.concat(sent), back: await got };
      }),
    );
    for (const [k, { sent, back }] of results.entries()) {
      assert.equal(back.length, sent.length, `stream ${k}: every byte echoed`);
      assert.ok(back.equals(sent), `stream ${k}: bytes in order`);
    }
  } finally {
    gateway.destroy();
  }
});
/** The first bytes of a frame: type and stream id. */
function frameStart(type: number, id: number): Buffer {
  const b = Buffer.from([type, 0, 0, 0, 0]);
  b.writeUInt32BE(id, 1);
  return b;
}

/** A target that answers at once and closes first, as HTTP servers with `Connection: close` do. */
function answeringTarget(): Promise<LoopbackTarget> {
  return loopbackTarget((s) => s.end('answer'));
}

/** A copy of every buffer written to `socket` from now on (the tunnel writes through `write`). */
function recordWrites(socket: TunnelTransport): Buffer[] {
  const writes: Buffer[] = [];
  const write = socket.write.bind(socket) as (b: Buffer, cb?: () => void) => boolean;
  socket.write = ((b: Buffer, cb?: () => void) => {
    writes.push(Buffer.from(b));
    return write(b, cb);
  }) as typeof socket.write;
  return writes;
}

test("the gateway's FIN after the agent's goes at once, so the agent frees its stream between requests", async () => {
  const answering = await answeringTarget();
  const { gateway, agent } = await muxPair();
  try {
    const writes = recordWrites(gateway.socket);
    const first = await openThrough(gateway, answering.port);
    assert.equal(first.code, 0);
    const id = [...gateway.streams.keys()][0]!;
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      first.customer.on('data', (d: Buffer) => (text += d));
      first.customer.on('end', () => resolve(text));
    });
    assert.equal(answer, 'answer');
    // Two loop iterations after the gateway sees the customer's end: a FIN held back for a later
    // write (at concurrency 1, the next OPEN) would not have been written yet.
    const written = new Promise<boolean>((resolve) => {
      first.inner.once('end', () =>
        setImmediate(() =>
          setImmediate(() => resolve(writes.some((w) => w.includes(frameStart(T_FIN, id))))),
        ),
      );
    });
    first.customer.end();
    assert.ok(await written, 'the FIN is written at once, by itself');
    await waitFor(() => agent.streams.size === 0, {
      timeoutMs: 2000,
      what: "the agent's stream is released",
    });
  } finally {
    gateway.destroy();
    await answering.close();
  }
});

test("a target's answer and its FIN right behind it leave the agent in one tunnel write", async () => {
  const answering = await answeringTarget();
  const port = answering.port;
  const { gateway, agent } = await muxPair({ awaitLocalFin: true });
  try {
    const writes = recordWrites(agent.socket);
    for (let round = 0; round < 3; round++) {
      writes.length = 0;
      const { customer, code } = await openThrough(gateway, port);
      assert.equal(code, 0);
      const id = [...gateway.streams.keys()].at(-1)!;
      assert.equal(await readToEnd(customer).then(String), 'answer');
      const withData = writes.filter((w) => w.includes(frameStart(T_DATA, id)));
      assert.equal(withData.length, 1, 'the answer went out in one write');
      assert.ok(withData[0].includes(frameStart(T_FIN, id)), 'and the FIN with it');
      customer.end();
      await waitFor(() => agent.streams.size === 0, {
        timeoutMs: 2000,
        what: "the agent's stream is released",
      });
    }
  } finally {
    gateway.destroy();
    await answering.close();
  }
});

test('open failure carries the code; a refused port answers 5', async () => {
  const { gateway } = await muxPair();
  const tmp = net.createServer();
  await new Promise<void>((r) => tmp.listen(0, '127.0.0.1', r));
  const dead = (tmp.address() as net.AddressInfo).port;
  await new Promise<void>((r) => tmp.close(() => r()));
  const { code } = await openThrough(gateway, dead);
  assert.equal(code, 5);
  assert.equal(gateway.streams.size, 0);
  gateway.destroy();
});

test('a peer that ignores the window gets the stream reset, not unbounded buffering', async () => {
  const { gateway, agent } = await muxPair({ window: 64 * 1024 });
  const { customer, code } = await openThrough(gateway, echoPort);
  assert.equal(code, 0);
  const failure = new Promise<string | undefined>((resolve) => {
    customer.on('data', () => {});
    customer.once('error', (err: NodeJS.ErrnoException) => resolve(err.code));
    customer.once('end', () => resolve('clean end'));
  });
  const id = [...agent.streams.keys()][0]!;
  // Misbehave: send 3 windows' worth of DATA at once from the agent side.
  agent.writeFrame(T_DATA, id, Buffer.alloc(3 * 64 * 1024));
  // A cut stream must not look complete to the customer: it is reset, not ended.
  assert.equal(await failure, 'ECONNRESET');
  await waitFor(() => gateway.streams.size === 0, { timeoutMs: 2000 });
  gateway.destroy();
});

test('an oversized control frame closes the tunnel and every stream', async () => {
  const { gateway, agent } = await muxPair();
  const { customer } = await openThrough(gateway, echoPort);
  const closed = endOrClose(customer);
  const gone = new Promise<void>((r) => {
    const check = setInterval(() => {
      if (gateway.closed) {
        clearInterval(check);
        r();
      }
    }, 10);
  });
  agent.writeFrame(0x7f, 0, Buffer.alloc(MAX_CONTROL_FRAME + 1));
  await gone;
  await closed;
  agent.destroy();
});

test('keepalive: a silent peer is dropped after the idle timeout', async () => {
  const [a, b] = await socketPair();
  b.on('data', () => {}); // a peer that reads but never answers
  const started = Date.now();
  const closed = new Promise<void>((resolve) => {
    new Mux(a, { pingIntervalMs: 50, idleTimeoutMs: 200, onControl: () => {}, onClose: () => resolve() });
  });
  await closed;
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 150 && elapsed < 2000, `closed after ${elapsed} ms`);
  b.destroy();
});
