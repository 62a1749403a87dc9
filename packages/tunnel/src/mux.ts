import type net from 'node:net';
import { FrameOutput } from './frame-output.ts';
import { FrameReader } from './frame-reader.ts';
import { T_DATA, T_FIN, T_OPEN, T_OPEN_FAIL, T_OPEN_OK, T_PING, T_PONG, T_RST, T_WINDOW } from './frames.ts';
import { Keepalive } from './keepalive.ts';
import {
  DEFAULT_WINDOW,
  type MuxOptions,
  RECORD_LIMIT,
  TCP_KEEPALIVE_MS,
  TUNNEL_HIGH_WATER,
  type TunnelTransport,
} from './mux-options.ts';
import { abort, coveredBytes, type LocalSocket, MuxStream, type StreamEnd } from './mux-stream.ts';
import { RecordBudget } from './record-budget.ts';
import { StreamFlow } from './stream-flow.ts';

export { DEFAULT_WINDOW, type MuxOptions, type TunnelTransport } from './mux-options.ts';
export { type LocalSocket, MuxStream, type StreamBudget, type StreamEnd } from './mux-stream.ts';

const EMPTY = Buffer.alloc(0);
/** A drained tunnel (`drain`) waits this long with no stream before it closes: last bytes settle. */
const DRAIN_GRACE_MS = 1000;

/**
 * A yamux-style multiplexer over one duplex connection: framing, per-stream flow control,
 * half-close, reset and keepalive. Both the gateway and the agent use it.
 */
export class Mux {
  readonly socket: TunnelTransport;
  readonly streams = new Map<number, MuxStream>();
  readonly window: number;
  peerWindow: number;
  /** Streams the peer serves at once, as its HELLO said (gateway side); Infinity when it did not. */
  peerMaxStreams = Number.POSITIVE_INFINITY;
  closed = false;
  /** Before authentication: only the handshake is answered (`MuxOptions.preAuth`). */
  private preAuth: boolean;
  /** A fresh tunnel replaced this one: it closes once its last stream is gone. */
  private draining = false;
  private readonly flow: StreamFlow;
  private readonly out: FrameOutput;
  private readonly reader: FrameReader;
  private readonly records: RecordBudget;
  private nextId = 1;
  private readonly opts: MuxOptions;
  private readonly keepalive: Keepalive;

  constructor(socket: TunnelTransport, opts: MuxOptions) {
    this.socket = socket;
    this.opts = opts;
    this.window = opts.window ?? DEFAULT_WINDOW;
    this.peerWindow = opts.peerWindow ?? DEFAULT_WINDOW;
    this.preAuth = opts.preAuth ?? false;
    socket.setNoDelay(true);
    // The kernel finds a vanished peer (TCP_KEEPALIVE_MS); fakes in tests have no TCP to probe.
    socket.setKeepAlive?.(true, TCP_KEEPALIVE_MS);
    const interval = opts.pingIntervalMs ?? 15_000;
    this.keepalive = new Keepalive(
      interval,
      opts.idleTimeoutMs ?? interval * 3,
      () => this.writeFrame(T_PING, 0, EMPTY),
      () => this.destroy(new Error('tunnel keepalive timeout')),
      opts.pingOnlyWhenSilent ?? false,
    );
    if (!this.preAuth) this.keepalive.start();
    this.records = new RecordBudget(
      opts.recordLimit ?? RECORD_LIMIT,
      () => opts.onRenewDue?.(),
      () => this.destroy(new Error('tunnel: record limit reached (a fresh tunnel brings fresh keys)')),
    );
    this.out = new FrameOutput(
      socket,
      {
        awaitLocalFin: opts.awaitLocalFin ?? false,
        streamCount: () => this.streams.size,
        isClosed: () => this.closed,
        onWritable: () => this.flow.drained(),
        onDrop: (err) => this.destroy(err),
      },
      this.records,
    );
    this.flow = new StreamFlow({
      isBlocked: () => this.out.blocked,
      unblock: () => {
        if (!this.out.blocked || this.socket.writableLength > TUNNEL_HIGH_WATER) return false;
        this.out.blocked = false;
        return true;
      },
      sendData: (st, payload) => this.writeFrame(T_DATA, st.id, payload),
      sendFin: (st) => this.sendFin(st),
      finish: (st) => this.finish(st),
    });
    this.reader = new FrameReader({
      onDataFrame: (id, size) => this.onDataFrame(id, size),
      onData: (id, piece) => this.onData(id, piece),
      onFrame: (type, id, payload) => this.onFrame(type, id, payload),
      onProtocolError: (err) => this.destroy(err),
      isClosed: () => this.closed,
    });
    socket.on('data', (chunk: Buffer) => {
      this.keepalive.heard();
      this.reader.push(chunk);
      this.records.read();
    });
    socket.on('drain', () => this.flow.drained());
    socket.on('error', (err) => this.destroy(err));
    socket.on('close', () => this.destroy());
    socket.on('end', () => this.destroy());
  }

  /** Queues a frame; everything queued in one loop iteration goes out in one write (`FrameOutput`). */
  writeFrame(type: number, streamId: number, payload: Buffer, localData = false): void {
    if (!this.closed) this.out.write(type, streamId, payload, localData);
  }

  /** Gateway: opens a stream to `address` (SOCKS ATYP+ADDR+PORT); `onResult` gets 0 or a reply code. */
  open(address: Buffer, onResult: (code: number) => void): MuxStream {
    let id = this.nextId;
    while (this.streams.has(id) || id === 0) id = (id + 1) >>> 0;
    this.nextId = (id + 1) >>> 0;
    const st = new MuxStream(id, this.peerWindow);
    st.onOpenResult = onResult;
    this.streams.set(id, st);
    this.writeFrame(T_OPEN, id, address);
    return st;
  }

  /** Agent: registers a stream the gateway asked for. */
  accept(id: number): MuxStream {
    const st = new MuxStream(id, this.peerWindow);
    this.streams.set(id, st);
    return st;
  }

  /** Agent: answers an OPEN; on failure the stream is forgotten. */
  answerOpen(st: MuxStream, code: number): void {
    if (st.closed) return;
    if (code === 0) {
      this.writeFrame(T_OPEN_OK, st.id, EMPTY);
    } else {
      this.writeFrame(T_OPEN_FAIL, st.id, Buffer.from([code]));
      this.forget(st, 'reset');
    }
  }

  /** Aborts a stream from this side (sends RST, destroys the local socket). */
  reset(st: MuxStream): void {
    if (st.closed) return;
    this.forget(st, 'reset');
    this.writeFrame(T_RST, st.id, EMPTY);
    abort(st.socket);
  }

  /**
   * Binds an open stream to its local socket and relays both ways with flow control. `early`:
   * bytes read from the socket already, sent first; `ended`: its 'end' came already. Reads come as
   * 'data' events, or, with `transient`, from the caller, who passes each chunk of a socket made
   * with Node's `onread` to the returned function (the chunk is only valid during that call).
   */
  attach(
    st: MuxStream,
    socket: LocalSocket,
    early?: Buffer,
    ended = false,
    transient = false,
  ): (chunk: Buffer) => void {
    st.socket = socket;
    (socket as Partial<net.Socket>).setNoDelay?.(true);
    const onChunk = (chunk: Buffer) => {
      if (st.closed) return;
      st.allowance -= chunk.length;
      if (st.allowance < 0) {
        const covered = coveredBytes(st, chunk.length);
        if (covered < chunk.length) {
          // The budget is spent: what it still covered goes out, then the stream is reset.
          st.allowance = covered;
          if (covered > 0) onChunk(chunk.subarray(0, covered));
          this.reset(st);
          return;
        }
      }
      st.sentBytes += chunk.length;
      if (st.pending || this.out.blocked) {
        // Held back (window or a full tunnel): no DATA is queued past the high-water mark.
        st.pending = st.pending ? Buffer.concat([st.pending, chunk]) : transient ? Buffer.from(chunk) : chunk;
        this.flow.holdBack(st);
        return;
      }
      const n = Math.min(chunk.length, st.sendWindow);
      if (n > 0) {
        st.sendWindow -= n;
        // A transient chunk is at most the read buffer's size, which the frame writer copies.
        this.writeFrame(T_DATA, st.id, n === chunk.length ? chunk : chunk.subarray(0, n), true);
      }
      if (n < chunk.length) {
        st.pending = transient ? Buffer.from(chunk.subarray(n)) : chunk.subarray(n);
        socket.pause();
      } else if (this.out.blocked) {
        this.flow.holdBack(st);
      }
    };
    // The early bytes first, then what the socket holds (a paused socket's buffer), then new reads.
    if (early?.length) onChunk(early);
    if (!transient) socket.on('data', onChunk);
    if (!st.pending && !st.blocked) socket.resume();
    const onEnd = () => {
      if (st.closed) return;
      if (st.pending) st.finPending = true;
      else this.sendFin(st);
    };
    if (ended) onEnd();
    else socket.on('end', onEnd);
    socket.on('drain', () => {
      if (st.unflushed > 0) {
        const n = st.unflushed;
        st.unflushed = 0;
        this.grant(st, n);
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      if (st.closed) return;
      // A clean local EOF whose last bytes wait for window: finish when they and the FIN are sent.
      if (st.finPending) st.localClosed = true;
      else this.finish(st);
    });
    return onChunk;
  }

  /**
   * A fresh tunnel of the same agent took over (gateway side): no new stream comes here, and the
   * tunnel closes, its queued frames written, once its last stream has been gone for a moment.
   */
  drain(): void {
    if (this.draining || this.closed) return;
    this.draining = true;
    this.closeIfDrained();
  }

  private closeIfDrained(): void {
    if (!this.draining || this.streams.size > 0) return;
    setTimeout(() => {
      if (this.closed || this.streams.size > 0) return;
      this.out.flush();
      this.destroy(undefined, true);
    }, DRAIN_GRACE_MS).unref();
  }

  /** A new PING period (the gateway's WELCOME asked for it); silent for three of them closes the tunnel. */
  setPingInterval(ms: number): void {
    this.keepalive.retime(ms, ms * 3);
  }

  /**
   * The peer is verified (its HELLO on the gateway, WELCOME on the agent): ordinary frames and the
   * keepalive from now on.
   */
  authenticated(): void {
    if (!this.preAuth) return;
    this.preAuth = false;
    this.keepalive.start();
  }

  /** Forgets a stream whose local socket is gone: a clean close if both FINs passed, else a reset. */
  private finish(st: MuxStream): void {
    const clean = st.finSent && st.finRecv;
    this.forget(st, clean ? 'closed' : 'reset');
    if (!clean) this.writeFrame(T_RST, st.id, EMPTY);
  }

  /** Marks a stream ended and drops it from the tunnel's tables. */
  private forget(st: MuxStream, end: StreamEnd): void {
    st.closed = true;
    st.end = end;
    this.streams.delete(st.id);
    this.flow.forget(st);
    if (this.draining) this.closeIfDrained();
  }

  /** Gateway side: a stream still waiting for its OPEN answer fails with a general failure. */
  private failPendingOpen(st: MuxStream): void {
    const cb = st.onOpenResult;
    st.onOpenResult = null;
    cb?.(0x01);
  }

  /**
   * Tears the tunnel down; every stream's socket is destroyed. `graceful`: the connection is ended
   * after what the socket has queued (a drained tunnel), not cut.
   */
  destroy(err?: Error, graceful = false): void {
    if (this.closed) return;
    this.closed = true;
    this.keepalive.stop();
    this.out.clear();
    if (graceful) {
      this.socket.end();
      setTimeout(() => this.socket.destroy(), 10_000).unref();
    } else {
      this.socket.destroy();
    }
    for (const st of this.streams.values()) {
      st.closed = true;
      st.end = 'tunnel';
      this.failPendingOpen(st);
      abort(st.socket);
    }
    this.streams.clear();
    this.flow.clear();
    this.opts.onClose?.(err);
  }

  private sendFin(st: MuxStream): void {
    st.finSent = true;
    this.writeFrame(T_FIN, st.id, EMPTY);
  }

  private grant(st: MuxStream, n: number): void {
    st.credit += n;
    if (st.credit >= this.window >>> 2 && !st.closed) {
      const b = Buffer.allocUnsafe(4);
      b.writeUInt32BE(st.credit, 0);
      st.outstanding -= st.credit;
      st.credit = 0;
      this.writeFrame(T_WINDOW, st.id, b);
    }
  }

  /** A DATA frame larger than our window is a peer ignoring it, whatever credit is on the way. */
  private onDataFrame(id: number, size: number): void {
    const st = this.streams.get(id);
    if (st && !st.closed && size > this.window) this.reset(st);
  }

  private onData(id: number, piece: Buffer): void {
    if (this.preAuth) {
      this.destroy(new Error('tunnel: DATA before authentication'));
      return;
    }
    const st = this.streams.get(id);
    if (!st?.socket || st.closed) return;
    st.allowance -= piece.length;
    if (st.allowance < 0) {
      const covered = coveredBytes(st, piece.length);
      if (covered < piece.length) {
        // The budget is spent: what it still covered is written, then the stream is reset.
        st.allowance = 0;
        if (covered > 0 && !st.socket.destroyed) {
          st.recvBytes += covered;
          st.socket.write(piece.subarray(0, covered));
        }
        this.reset(st);
        return;
      }
    }
    st.recvBytes += piece.length;
    st.outstanding += piece.length;
    if (st.outstanding > this.window) {
      // The peer ignored our window: abort the stream rather than buffer without bound.
      this.reset(st);
      return;
    }
    // Written by reference (a piece of the tunnel read's own buffer), straight away: corking the
    // local sockets for one write per loop iteration measured no cheaper (docs/benchmarks.md).
    const socket = st.socket;
    if (socket.destroyed || socket.writableEnded) return;
    if (socket.write(piece)) this.grant(st, piece.length);
    else st.unflushed += piece.length;
  }

  private onFrame(type: number, id: number, payload: Buffer): void {
    // Before authentication the owner sees every frame: it accepts the handshake and nothing else.
    if (this.preAuth) {
      this.opts.onControl(type, id, payload);
      return;
    }
    switch (type) {
      case T_WINDOW: {
        const st = this.streams.get(id);
        if (!st || st.closed || payload.length !== 4) return;
        st.sendWindow += payload.readUInt32BE(0);
        this.flow.pump(st);
        return;
      }
      case T_FIN: {
        const st = this.streams.get(id);
        if (!st || st.closed) return;
        st.finRecv = true;
        st.socket?.end();
        return;
      }
      case T_RST: {
        const st = this.streams.get(id);
        if (!st || st.closed) return;
        this.forget(st, 'reset');
        this.failPendingOpen(st);
        abort(st.socket);
        return;
      }
      case T_OPEN_OK:
      case T_OPEN_FAIL: {
        const st = this.streams.get(id);
        const cb = st?.onOpenResult;
        if (!st || !cb) return;
        st.onOpenResult = null;
        const code = type === T_OPEN_OK ? 0 : (payload[0] ?? 0x01) || 0x01;
        if (code !== 0) this.forget(st, 'reset');
        cb(code);
        return;
      }
      case T_PING:
        this.writeFrame(T_PONG, 0, payload);
        return;
      case T_PONG:
        return;
      default:
        this.opts.onControl(type, id, payload);
    }
  }
}
