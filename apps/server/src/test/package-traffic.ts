/**
 * Test helpers for traffic through a port package on loopback: a TCP source the customer steers
 * over the proxied connection itself (as a hostile customer steers their own server), and a small
 * SOCKS5 client that counts what arrives and says when the gateway cut the connection.
 */
import net, { type AddressInfo } from 'node:net';
import { waitFor } from '@pm/testkit';

const CHUNK = Buffer.alloc(64 * 1024, 0x5a);

/** A loopback source: each connection obeys the lines it receives (`send N`, `flood`, `end`). */
export interface ByteSource {
  port: number;
  close(): Promise<void>;
}

/** Writes `n` bytes to `s` as fast as it drains, then calls `done`. */
function pump(s: net.Socket, n: number, done: () => void): void {
  let left = n;
  const write = () => {
    while (left > 0 && !s.destroyed) {
      const part = CHUNK.subarray(0, Math.min(left, CHUNK.length));
      left -= part.length;
      if (!s.write(part)) return void s.once('drain', write);
    }
    done();
  };
  write();
}

/**
 * Starts the source. A connection's lines: `send N` writes N bytes and keeps the connection open,
 * `flood` writes without end until the connection goes, `end` ends it (after what is queued).
 */
export async function startByteSource(): Promise<ByteSource> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    let line = '';
    let queue = Promise.resolve();
    s.on('data', (d: Buffer) => {
      line += d.toString('latin1');
      for (let i = line.indexOf('\n'); i >= 0; i = line.indexOf('\n')) {
        const [verb, arg] = line.slice(0, i).trim().split(' ');
        line = line.slice(i + 1);
        queue = queue.then(
          () =>
            new Promise<void>((done) => {
              if (verb === 'send') pump(s, Number(arg), done);
              else if (verb === 'flood') pump(s, Number.MAX_SAFE_INTEGER, done);
              else if (verb === 'end') s.end(done);
              else done();
            }),
        );
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A customer's connection through a package port to the source. */
export interface Pull {
  socket: net.Socket;
  /** Bytes received from the source so far. */
  received(): number;
  /** Resolves once `n` bytes arrived (true) or `ms` passed or the connection ended first (false). */
  waitReceived(n: number, ms: number): Promise<boolean>;
  /** Resolves with the time the connection went (closed or reset by the gateway). */
  ended: Promise<number>;
  /** Sends one command line to the source through the proxy. */
  say(line: string): void;
}

/** Reads exactly `n` bytes of the handshake from `s`, or rejects when it closes first. */
function readExactly(s: net.Socket, n: number, held: { buf: Buffer }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (held.buf.length < n) return false;
      const out = held.buf.subarray(0, n);
      held.buf = held.buf.subarray(n);
      s.off('data', onData);
      s.off('close', onClose);
      resolve(out);
      return true;
    };
    const onData = (d: Buffer) => {
      held.buf = Buffer.concat([held.buf, d]);
      check();
    };
    const onClose = () =>
      reject(new Error(`the proxy closed the connection (${held.buf.length}/${n} bytes)`));
    if (check()) return;
    s.on('data', onData);
    s.once('close', onClose);
  });
}

/** SOCKS5 (RFC 1928, 1929): user/pass, CONNECT to 127.0.0.1:`targetPort`; rejects when refused. */
async function handshake(s: net.Socket, user: string, pwd: string, targetPort: number): Promise<Buffer> {
  const held = { buf: Buffer.alloc(0) };
  s.write(Buffer.from([5, 1, 2]));
  const method = await readExactly(s, 2, held);
  if (method[1] !== 2) throw new Error(`method ${method[1]}`);
  const u = Buffer.from(user);
  const p = Buffer.from(pwd);
  s.write(Buffer.concat([Buffer.from([1, u.length]), u, Buffer.from([p.length]), p]));
  const auth = await readExactly(s, 2, held);
  if (auth[1] !== 0) throw new Error(`auth refused (${auth[1]})`);
  const port = Buffer.alloc(2);
  port.writeUInt16BE(targetPort);
  s.write(Buffer.concat([Buffer.from([5, 1, 0, 1, 127, 0, 0, 1]), port]));
  const head = await readExactly(s, 4, held);
  if (head[1] !== 0) throw new Error(`CONNECT refused (${head[1]})`);
  const rest = head[3] === 1 ? 6 : head[3] === 4 ? 18 : 1 + (await readExactly(s, 1, held))[0]! + 2;
  await readExactly(s, rest, held);
  return held.buf;
}

/**
 * Opens a SOCKS5 connection through `port` of 127.0.0.1 with `user`/`pwd` to the source on
 * `targetPort`; rejects when the gateway refuses it (within `timeoutMs`).
 */
export async function pullThrough(
  port: number,
  user: string,
  pwd: string,
  targetPort: number,
  timeoutMs = 3000,
): Promise<Pull> {
  const socket = net.connect({ host: '127.0.0.1', port, noDelay: true });
  socket.on('error', () => {});
  const ended = new Promise<number>((r) => socket.once('close', () => r(Date.now())));
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('close', () => reject(new Error('refused')));
    });
    const early = await Promise.race([
      handshake(socket, user, pwd, targetPort),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('handshake timed out')), timeoutMs);
      }),
    ]);
    let received = early.length;
    socket.on('data', (d: Buffer) => {
      received += d.length;
    });
    const waitReceived = (n: number, ms: number) =>
      waitFor(() => received >= n || socket.destroyed, { timeoutMs: ms, intervalMs: 5 }).then(
        () => received >= n,
        () => false,
      );
    return {
      socket,
      received: () => received,
      waitReceived,
      ended,
      say: (line) => socket.write(`${line}\n`),
    };
  } catch (e) {
    socket.destroy();
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `pullThrough`, tried again every 100 ms for up to `ms` while the gateway refuses: it serves a new
 * package's ports once PostgreSQL's notification reaches it.
 */
export async function pullWhenServed(
  port: number,
  user: string,
  pwd: string,
  targetPort: number,
  ms = 5000,
): Promise<Pull> {
  return waitFor(() => pullThrough(port, user, pwd, targetPort).catch(() => null), {
    timeoutMs: ms,
    intervalMs: 100,
    what: `served on port ${port}`,
  });
}

/** Whether a connection attempt is refused (resolves true) rather than served (false; it is closed). */
export async function isRefused(attempt: Promise<Pull>): Promise<boolean> {
  try {
    (await attempt).socket.destroy();
    return false;
  } catch {
    return true;
  }
}

/** `waitFor` every 50 ms that measures: the milliseconds `check` took to hold, or undefined past `ms`. */
export async function within(check: () => Promise<boolean>, ms: number): Promise<number | undefined> {
  const start = Date.now();
  return waitFor(check, { timeoutMs: ms, intervalMs: 50 }).then(
    () => Date.now() - start,
    () => undefined,
  );
}
