import dns from 'node:dns/promises';
import { EventEmitter } from 'node:events';
import net from 'node:net';
import { getDefaultHighWaterMark } from 'node:stream';
import util from 'node:util';
import { sharedChunk, sharedReadBuffer } from './own-buffer-reads.ts';

/**
 * TCP sockets straight on Node's libuv handle (`tcp_wrap`), without `net.Socket`'s stream
 * machinery: the customer sockets of the gateway and the target sockets of the agent, which live
 * for one request each. Measured (docs/benchmarks.md): a connect-write-read-close cycle costs 72
 * µs of CPU this way against 102 through `net.Socket`; its Readable and Writable state machines,
 * ticks and listeners are most of the difference.
 *
 * What it offers is the part of `net.Socket` that the relay uses, with the same meaning:
 * `write` (callback once the kernel has the bytes), `end` (FIN after queued writes), `destroy`,
 * `resetAndDestroy`, `pause`/`resume`, `writableLength`, `destroyed`, `writableEnded`,
 * `remoteAddress`, and the events 'end' (the peer's FIN), 'drain', 'error' and 'close' (once,
 * on the tick after the close). Half-open like `allowHalfOpen: true`: the socket closes itself
 * once both FINs have passed. Reads go to `onChunk`, in the process's shared read buffer: a
 * chunk is valid only during the call.
 */

interface AddressOut {
  address?: string;
  port?: number;
}
interface TcpHandle {
  onread: (() => void) | null;
  onconnection: ((status: number, client?: TcpHandle) => void) | null;
  readStart(): number;
  readStop(): number;
  useUserBuffer(buf: Uint8Array): void;
  writeBuffer(req: WriteReq, buf: Uint8Array): number;
  shutdown(req: ShutdownReq): number;
  close(cb?: () => void): void;
  reset(cb?: () => void): number;
  setNoDelay(on: boolean): number;
  getpeername(out: AddressOut): number;
  getsockname(out: AddressOut): number;
  connect(req: ConnectReq, address: string, port: number): number;
  connect6(req: ConnectReq, address: string, port: number): number;
  bind(address: string, port: number): number;
  bind6(address: string, port: number, flags: number): number;
  listen(backlog: number): number;
}
interface WriteReq {
  handle: TcpHandle | null;
  oncomplete: (this: WriteReq, status: number) => void;
  async: boolean;
  socket: RawSocket | null;
  buffer: Uint8Array;
  bytes: number;
  cb: (() => void) | undefined;
}
interface ShutdownReq {
  handle: TcpHandle;
  oncomplete: (this: ShutdownReq, status: number) => void;
  socket: RawSocket;
}
interface ConnectReq {
  oncomplete: (status: number) => void;
  address: string;
  port: number;
}

const legacy = process as unknown as { binding(name: string): unknown };
const tcpWrap = legacy.binding('tcp_wrap') as {
  TCP: new (type: number) => TcpHandle;
  TCPConnectWrap: new () => ConnectReq;
  constants: { SOCKET: number; SERVER: number };
};
const streamWrap = legacy.binding('stream_wrap') as {
  WriteWrap: new () => WriteReq;
  ShutdownWrap: new () => ShutdownReq;
  streamBaseState: Int32Array;
  kReadBytesOrError: number;
  kLastWriteWasAsync: number;
};
const { streamBaseState, kReadBytesOrError, kLastWriteWasAsync } = streamWrap;
/** libuv's end-of-file status (the same on every platform). */
const UV_EOF = -4095;
/** `write` answers false from this many queued bytes on, as a `net.Socket` does (Node's default). */
const HIGH_WATER = getDefaultHighWaterMark(false);
/**
 * Linux gives an accepted socket its listener's TCP_NODELAY: a listener that has it saves every
 * accepted socket its own setsockopt call.
 */
const ACCEPTED_INHERIT_NODELAY = process.platform === 'linux';

/**
 * A write request that a write did not need: the kernel took everything inside the call, so
 * Node never tied it to a native request, and the next write may use it instead of building one
 * (a native object with a persistent handle each time).
 */
let spareWriteReq: WriteReq | null = null;

/** An `Error` like Node's for a libuv status: `code` is the errno name (`ECONNREFUSED`). */
export function uvError(status: number, syscall: string): NodeJS.ErrnoException {
  const code = util.getSystemErrorName(status);
  return Object.assign(new Error(`${syscall} ${code}`), { code, errno: status, syscall });
}

function onWriteComplete(this: WriteReq, status: number): void {
  this.socket?.afterWrite(this, status);
}

function newWriteReq(): WriteReq {
  const req = new streamWrap.WriteWrap();
  req.oncomplete = onWriteComplete;
  return req;
}

function onShutdownComplete(this: ShutdownReq, status: number): void {
  this.socket.afterShutdown(status);
}

function emitClose(socket: RawSocket): void {
  socket.emit('close');
}

export class RawSocket extends EventEmitter {
  /** Handed each read; the chunk lies in the shared read buffer and is valid only during the call. */
  onChunk: ((chunk: Buffer) => void) | null = null;
  destroyed = false;
  /** `end` was called: no more writes. */
  writableEnded = false;
  /** Bytes handed to `write` that the kernel has not taken yet. */
  writableLength = 0;
  private readonly handle: TcpHandle;
  private reading = false;
  private readEnded = false;
  private shutdownDone = false;
  private needDrain = false;
  private peer: string | undefined;
  private noDelay = false;

  /** `noDelay`: the socket has TCP_NODELAY already (inherited from its listener). */
  constructor(handle: TcpHandle, noDelay = false) {
    super();
    this.handle = handle;
    this.noDelay = noDelay;
    handle.onread = this.onRead;
    handle.useUserBuffer(sharedReadBuffer());
  }

  /** Installs the reader and starts reading. */
  readInto(onChunk: (chunk: Buffer) => void): void {
    this.onChunk = onChunk;
    this.resume();
  }

  pause(): this {
    if (this.reading) {
      this.reading = false;
      this.handle.readStop();
    }
    return this;
  }

  resume(): this {
    if (!this.reading && !this.readEnded && !this.destroyed) {
      this.reading = true;
      const err = this.handle.readStart();
      if (err) this.fail(err, 'read');
    }
    return this;
  }

  /** A system call only when the setting changes (the relay asks again for every socket it binds). */
  setNoDelay(on = true): this {
    if (on !== this.noDelay && !this.destroyed) {
      this.noDelay = on;
      this.handle.setNoDelay(on);
    }
    return this;
  }

  get remoteAddress(): string | undefined {
    if (this.peer === undefined && !this.destroyed) {
      const out: AddressOut = {};
      if (this.handle.getpeername(out) === 0) this.peer = out.address;
    }
    return this.peer;
  }

  /**
   * Writes `data`, which must not change until `cb`: called inside this call when the kernel took
   * it all (or refused it), else once the queued rest is written. False: wait for 'drain'.
   */
  write(data: Uint8Array, cb?: () => void): boolean {
    if (this.destroyed || this.writableEnded) return false;
    const req = spareWriteReq ?? newWriteReq();
    spareWriteReq = null;
    req.handle = this.handle;
    req.socket = this;
    const err = this.handle.writeBuffer(req, data);
    if (err || !streamBaseState[kLastWriteWasAsync]) {
      // Done (or refused) inside the call: nothing holds `data`, and Node did not keep `req`.
      req.handle = null;
      req.socket = null;
      spareWriteReq = req;
    }
    if (err) {
      cb?.();
      this.fail(err, 'write');
      return false;
    }
    if (streamBaseState[kLastWriteWasAsync]) {
      // The rest waits in libuv's queue, pointing into `data`: the request keeps it alive.
      req.async = true;
      req.buffer = data;
      req.bytes = data.length;
      req.cb = cb;
      this.writableLength += data.length;
      if (this.writableLength < HIGH_WATER) return true;
      this.needDrain = true;
      return false;
    }
    cb?.();
    return true;
  }

  /** Called by an async write's request once it is done (or cancelled by a close). */
  afterWrite(req: WriteReq, status: number): void {
    this.writableLength -= req.bytes;
    req.cb?.();
    if (status < 0) this.fail(status, 'write');
    else if (this.needDrain && this.writableLength === 0 && !this.destroyed) {
      this.needDrain = false;
      this.emit('drain');
    }
  }

  /** Sends FIN once the queued writes are out (`data` first, if given). */
  end(data?: Uint8Array): this {
    if (this.destroyed || this.writableEnded) return this;
    if (data) this.write(data);
    if (this.destroyed) return this;
    this.writableEnded = true;
    // The peer's FIN came and nothing waits here: closing sends our FIN (the kernel still sends what
    // it holds) and saves the shutdown call and the wake-up its completion costs.
    if (this.readEnded && this.writableLength === 0) return this.destroy();
    const req = new streamWrap.ShutdownWrap();
    req.handle = this.handle;
    req.oncomplete = onShutdownComplete;
    req.socket = this;
    const err = this.handle.shutdown(req);
    if (err) this.fail(err, 'shutdown');
    return this;
  }

  afterShutdown(status: number): void {
    if (status < 0) {
      this.fail(status, 'shutdown');
      return;
    }
    this.shutdownDone = true;
    if (this.readEnded) this.destroy();
  }

  /**
   * Closes at once (libuv closes the descriptor inside the call); 'close' follows on the next tick,
   * not from the handle's close callback, which would cost a callback into JavaScript per socket.
   */
  destroy(): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    this.reading = false;
    this.handle.close();
    process.nextTick(emitClose, this);
    return this;
  }

  /** Closes with a reset (RST), so the peer cannot take the end for a complete answer. */
  resetAndDestroy(): this {
    if (this.destroyed) return this;
    // libuv refuses a reset once a shutdown was requested: a plain close then.
    if (this.writableEnded) return this.destroy();
    this.destroyed = true;
    this.reading = false;
    if (this.handle.reset() !== 0) this.handle.close();
    process.nextTick(emitClose, this);
    return this;
  }

  private readonly onRead = (): void => {
    const n = streamBaseState[kReadBytesOrError];
    if (n > 0) {
      this.onChunk?.(sharedChunk(n));
    } else if (n === UV_EOF) {
      this.readEnded = true;
      this.pause();
      this.emit('end');
      if (this.shutdownDone) this.destroy();
    } else if (n < 0) {
      this.fail(n, 'read');
    }
  };

  private fail(status: number, syscall: string): void {
    if (this.destroyed) return;
    // Like a net.Socket's: an 'error' for whoever listens, then the close.
    if (this.listenerCount('error') > 0) this.emit('error', uvError(status, syscall));
    this.destroy();
  }
}

/**
 * Connects to `ip` (an address, never a name) and calls `onConnect` once: with null when connected,
 * with the error otherwise (the socket is destroyed then). Not called if the socket is destroyed first.
 */
export function connectTcp(ip: string, port: number, onConnect: (err: Error | null) => void): RawSocket {
  const handle = new tcpWrap.TCP(tcpWrap.constants.SOCKET);
  const socket = new RawSocket(handle);
  const req = new tcpWrap.TCPConnectWrap();
  req.address = ip;
  req.port = port;
  req.oncomplete = (status: number) => {
    if (socket.destroyed) return;
    if (status < 0) {
      socket.destroy();
      onConnect(uvError(status, 'connect'));
    } else {
      onConnect(null);
    }
  };
  // An address, so a colon means IPv6 (cheaper than `net.isIPv6`'s pattern on every connect).
  const err = ip.includes(':') ? handle.connect6(req, ip, port) : handle.connect(req, ip, port);
  if (err) {
    socket.destroy();
    process.nextTick(onConnect, uvError(err, 'connect'));
  }
  return socket;
}

/** A listening TCP socket whose connections are `RawSocket`s (half-open, no Nagle). */
export class RawServer {
  /** Open connections accepted here. */
  connections = 0;
  private handle: TcpHandle | null = null;
  private readonly onSocket: (socket: RawSocket) => void;
  private idle: (() => void)[] = [];

  constructor(onSocket: (socket: RawSocket) => void) {
    this.onSocket = onSocket;
  }

  /** Listens on `host` (an address or a name) and `port` (0: any); answers the port. */
  async listen(port: number, host: string): Promise<number> {
    const ip = net.isIP(host) ? host : (await dns.lookup(host)).address;
    const handle = new tcpWrap.TCP(tcpWrap.constants.SERVER);
    const fail = (status: number, syscall: string) => {
      handle.close();
      const err = uvError(status, syscall);
      err.message = `${syscall} ${err.code} ${ip}:${port}`;
      throw err;
    };
    const bound = net.isIPv6(ip) ? handle.bind6(ip, port, 0) : handle.bind(ip, port);
    if (bound) fail(bound, 'bind');
    const inherited = ACCEPTED_INHERIT_NODELAY && handle.setNoDelay(true) === 0;
    handle.onconnection = (status, client) => {
      if (status < 0 || !client) return;
      const socket = new RawSocket(client, inherited);
      socket.setNoDelay(true);
      this.connections++;
      socket.once('close', this.onClosed);
      this.onSocket(socket);
    };
    const listening = handle.listen(511);
    if (listening) fail(listening, 'listen');
    this.handle = handle;
    const out: AddressOut = {};
    handle.getsockname(out);
    return out.port ?? port;
  }

  /** Stops listening; resolves once the connections accepted here are closed too (as `net.Server`). */
  close(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    const stopped = new Promise<void>((resolve) => (handle ? handle.close(resolve) : resolve()));
    const drained = new Promise<void>((resolve) => {
      if (this.connections === 0) resolve();
      else this.idle.push(resolve);
    });
    return Promise.all([stopped, drained]).then(() => {});
  }

  private readonly onClosed = (): void => {
    if (--this.connections > 0) return;
    const waiting = this.idle;
    this.idle = [];
    for (const resolve of waiting) resolve();
  };
}
