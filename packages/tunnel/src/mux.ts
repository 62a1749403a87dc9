import { FrameOutput, type FrameOutputOwner } from './frame-output.ts';
import { FrameReader, type FrameSink } from './frame-reader.ts';
import { T_DATA, T_FIN, T_OPEN, T_OPEN_FAIL, T_OPEN_OK, T_PING, T_PONG, T_RST, T_WINDOW } from './frames.ts';
import { Keepalive, type KeepaliveHost } from './keepalive.ts';
import { relayLocal } from './mux-local.ts';
import {
  DEFAULT_WINDOW,
  type MuxOptions,
  RECORD_LIMIT,
  TCP_KEEPALIVE_MS,
  TUNNEL_HIGH_WATER,
  type TunnelTransport,
} from './mux-options.ts';
import { abort, coveredBytes, type LocalSocket, MuxStream, type StreamEnd } from './mux-stream.ts';
import { RecordBudget, type RecordBudgetHost } from './record-budget.ts';
import { type FlowHost, StreamFlow } from './stream-flow.ts';

export { DEFAULT_WINDOW, type MuxOptions, type TunnelTransport } from './mux-options.ts';
export { type LocalSocket, MuxStream, type StreamBudget, type StreamEnd } from './mux-stream.ts';

const EMPTY = Buffer.alloc(0);
/** A drained tunnel (`drain`) waits this long with no stream before it closes: last bytes settle. */
const DRAIN_GRACE_MS = 1000;

/** The tunnel socket's own Mux, for the listeners below. */
const MUX = Symbol('mux');
type OwnedSocket = TunnelTransport & { [MUX]: Mux };

// The tunnel socket's listeners: one function each for every tunnel, which finds its Mux on the socket.
function onTunnelData(this: OwnedSocket, chunk: Buffer): void {
  this[MUX].received(chunk);
}
function onTunnelDrain(this: OwnedSocket): void {
  this[MUX].onWritable();
}
function onTunnelError(this: OwnedSocket, err: Error): void {
  this[MUX].destroy(err);
}
function onTunnelGone(this: OwnedSocket): void {
  this[MUX].destroy();
}

/**
 * A yamux-style multiplexer over one duplex connection: framing, per-stream flow control,
 * half-close, reset and keepalive. Both the gateway and the agent use it.
 */
export class Mux implements FrameSink, FlowHost, FrameOutputOwner, KeepaliveHost, RecordBudgetHost {
  readonly socket: TunnelTransport;
  /** Local DATA is flushed after the next poll (`MuxOptions.awaitLocalFin`). */
  readonly awaitLocalFin: boolean;
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
    this.awaitLocalFin = opts.awaitLocalFin ?? false;
    const interval = opts.pingIntervalMs ?? 15_000;
    // Its parts call its methods (the interfaces below), and the socket's listeners are functions
    // shared by every tunnel: an idle agent's tunnel holds no closures of its own.
    this.keepalive = new Keepalive(
      interval,
      opts.idleTimeoutMs ?? interval * 3,
      this,
      opts.pingOnlyWhenSilent ?? false,
    );
    if (!this.preAuth) this.keepalive.start();
    this.records = new RecordBudget(opts.recordLimit ?? RECORD_LIMIT, this);
    this.out = new FrameOutput(socket, this, this.records);
    this.flow = new StreamFlow(this);
    this.reader = new FrameReader(this);
    (socket as OwnedSocket)[MUX] = this;
    socket.on('data', onTunnelData);
    socket.on('drain', onTunnelDrain);
    socket.on('error', onTunnelError);
    socket.on('close', onTunnelGone);
    socket.on('end', onTunnelGone);
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
   * Binds an open stream to its local socket and relays both ways with flow control; the
   * arguments as `relayLocal` (mux-local.ts) describes them.
   */
  attach(
    st: MuxStream,
    socket: LocalSocket,
    early?: Buffer,
    ended = false,
    transient = false,
  ): (chunk: Buffer) => void {
    return relayLocal(this, st, socket, early, ended, transient);
  }

  /** Pauses a stream's source until its window or the tunnel's drain lets it send again. */
  holdBack(st: MuxStream): void {
    this.flow.holdBack(st);
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

  // The calls of its parts (FrameReader, FrameOutput, StreamFlow, Keepalive, RecordBudget) and of the
  // socket's listeners: public for them, not for the tunnel's users.

  /** The tunnel socket read a chunk. */
  received(chunk: Buffer): void {
    this.keepalive.heard();
    this.reader.push(chunk);
    this.records.read();
  }

  isClosed(): boolean {
    return this.closed;
  }

  streamCount(): number {
    return this.streams.size;
  }

  /** The queue fell under its high-water mark: the held-back streams go on. */
  onWritable(): void {
    this.flow.drained();
  }

  onDrop(err: Error): void {
    this.destroy(err);
  }

  onProtocolError(err: Error): void {
    this.destroy(err);
  }

  isBlocked(): boolean {
    return this.out.blocked;
  }

  unblock(): boolean {
    if (!this.out.blocked || this.socket.writableLength > TUNNEL_HIGH_WATER) return false;
    this.out.blocked = false;
    return true;
  }

  sendData(st: MuxStream, payload: Buffer): void {
    this.writeFrame(T_DATA, st.id, payload);
  }

  keepalivePing(): void {
    this.writeFrame(T_PING, 0, EMPTY);
  }

  keepaliveLost(): void {
    this.destroy(new Error('tunnel keepalive timeout'));
  }

  recordsHalfSpent(): void {
    this.opts.onRenewDue?.();
  }

  recordsSpent(): void {
    this.destroy(new Error('tunnel: record limit reached (a fresh tunnel brings fresh keys)'));
  }

  /** Forgets a stream whose local socket is gone: a clean close if both FINs passed, else a reset. */
  finish(st: MuxStream): void {
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

  sendFin(st: MuxStream): void {
    st.finSent = true;
    this.writeFrame(T_FIN, st.id, EMPTY);
  }

  /** Gives the peer `n` bytes of the stream's window back, in one WINDOW once a quarter has gathered. */
  grant(st: MuxStream, n: number): void {
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
  onDataFrame(id: number, size: number): void {
    const st = this.streams.get(id);
    if (st && !st.closed && size > this.window) this.reset(st);
  }

  onData(id: number, piece: Buffer): void {
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

  onFrame(type: number, id: number, payload: Buffer): void {
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
