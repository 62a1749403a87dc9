import type { EventEmitter } from 'node:events';
import net from 'node:net';
import { FrameReader } from './frame-reader.ts';
import { FrameWriter } from './frame-writer.ts';
import { T_DATA, T_FIN, T_OPEN, T_OPEN_FAIL, T_OPEN_OK, T_PING, T_PONG, T_RST, T_WINDOW } from './frames.ts';
import { Keepalive } from './keepalive.ts';
import { localWrites } from './local-writes.ts';
import {
  AFTER_IO,
  AFTER_NEXT_POLL,
  DEFAULT_WINDOW,
  type FlushAt,
  type MuxOptions,
  SOON,
  SOON_BYTES,
  SOON_STREAMS,
  TUNNEL_HIGH_WATER,
  type TunnelTransport,
} from './mux-options.ts';
import { abort, type LocalSocket, MuxStream, type StreamEnd } from './mux-stream.ts';
import { readIntoOwnBuffer } from './own-buffer-reads.ts';
import { RawSocket } from './raw-tcp.ts';

export { DEFAULT_WINDOW, type MuxOptions, type TunnelTransport } from './mux-options.ts';
export { type LocalSocket, MuxStream, type StreamEnd } from './mux-stream.ts';

const EMPTY = Buffer.alloc(0);

/**
 * A yamux-style multiplexer over one duplex connection: framing, per-stream flow control,
 * half-close, reset and keepalive. Both the gateway and the agent use it.
 */
export class Mux {
  readonly socket: TunnelTransport;
  readonly streams = new Map<number, MuxStream>();
  readonly window: number;
  peerWindow: number;
  closed = false;
  private blocked = false;
  private readonly blockedStreams = new Set<MuxStream>();
  /** Frames of this loop iteration, written in one call at the flush. */
  private readonly writer = new FrameWriter();
  private readonly reader: FrameReader;
  private flushScheduled = false;
  /** Inside the tunnel's read callback: DATA for local sockets is staged, and decided on after it. */
  private inTunnelRead = false;
  private localPending = false;
  private nextId = 1;
  private readonly opts: MuxOptions;
  private readonly keepalive: Keepalive;

  constructor(socket: TunnelTransport, opts: MuxOptions) {
    this.socket = socket;
    this.opts = opts;
    this.window = opts.window ?? DEFAULT_WINDOW;
    this.peerWindow = opts.peerWindow ?? DEFAULT_WINDOW;
    socket.setNoDelay(true);
    const interval = opts.pingIntervalMs ?? 15_000;
    this.keepalive = new Keepalive(
      interval,
      opts.idleTimeoutMs ?? interval * 3,
      () => this.writeFrame(T_PING, 0, EMPTY),
      () => this.destroy(new Error('tunnel keepalive timeout')),
    );
    this.reader = new FrameReader({
      onData: (id, piece) => this.onData(id, piece),
      onFrame: (type, id, payload) => this.onFrame(type, id, payload),
      onProtocolError: (err) => this.destroy(err),
      isClosed: () => this.closed,
    });
    const onChunk = (chunk: Buffer) => {
      this.keepalive.heard();
      this.inTunnelRead = true;
      try {
        this.reader.push(chunk);
      } finally {
        this.inTunnelRead = false;
      }
      if (this.localPending) {
        this.localPending = false;
        if (!localWrites.flushIfFew()) this.scheduleFlush();
      }
    };
    if (socket.readInto) socket.readInto(onChunk);
    else if (!(socket instanceof net.Socket && readIntoOwnBuffer(socket, onChunk)))
      socket.on('data', onChunk);
    socket.on('drain', () => this.onDrain());
    socket.on('error', (err) => this.destroy(err));
    socket.on('close', () => this.destroy());
    socket.on('end', () => this.destroy());
  }

  /** Queues a frame; everything queued in one loop iteration goes out in one write. */
  writeFrame(type: number, streamId: number, payload: Buffer, transient = false, localData = false): void {
    if (this.closed) return;
    this.writer.append(type, streamId, payload, transient);
    const queued = this.socket.writableLength;
    if (!this.blocked && queued + this.writer.bytes > TUNNEL_HIGH_WATER) this.blocked = true;
    const soon = queued === 0 && this.writer.bytes < SOON_BYTES && this.streams.size <= SOON_STREAMS;
    this.scheduleFlush(localData && this.opts.awaitLocalFin ? AFTER_NEXT_POLL : soon ? SOON : AFTER_IO);
  }

  /** Writes the queued frames at the moment `when` names (see `FlushAt`). */
  private scheduleFlush(when: FlushAt = AFTER_IO): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    if (when === SOON) process.nextTick(this.flush);
    else if (when === AFTER_IO) setImmediate(this.flush);
    else setImmediate(this.flushAfterNextPoll);
  }

  /** An immediate queued from an immediate runs in the next iteration, after its poll (which does not block). */
  private readonly flushAfterNextPoll = () => setImmediate(this.flush);

  private readonly flush = () => {
    this.flushScheduled = false;
    // Local writes first (also after the tunnel closed: they free the slab), so that the window
    // credit they return goes out in this flush.
    localWrites.flush();
    if (!this.closed) {
      const { pieces, done } = this.writer.take();
      if (pieces.length) {
        const s = this.socket;
        // One write, or one corked writev; `done` rides with the last piece (a stream's callbacks
        // come in order) and frees the staging slab.
        const last = pieces.length - 1;
        if (last > 0) s.cork();
        for (let i = 0; i < last; i++) s.write(pieces[i]);
        s.write(pieces[last], done);
        if (last > 0) s.uncork();
        // Written at once: no 'drain' will come, so resume the streams paused meanwhile here.
        if (this.blocked && s.writableLength <= TUNNEL_HIGH_WATER) this.onDrain();
      }
    }
  };

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
   * bytes read from the socket already, sent first; `ended`: its 'end' came already.
   */
  attach(st: MuxStream, socket: LocalSocket, early?: Buffer, ended = false): void {
    st.socket = socket;
    st.onLocalWritten = (n, accepted) => {
      if (accepted) this.grant(st, n);
      else st.unflushed += n;
    };
    (socket as Partial<net.Socket>).setNoDelay?.(true);
    // `transient`: the chunk is the process's shared read buffer, valid only during the call.
    const onChunk = (chunk: Buffer, transient: boolean) => {
      if (st.closed) return;
      st.sentBytes += chunk.length;
      if (st.pending) {
        st.pending = Buffer.concat([st.pending, chunk]);
        socket.pause();
        return;
      }
      const n = Math.min(chunk.length, st.sendWindow);
      if (n > 0) {
        st.sendWindow -= n;
        this.writeFrame(T_DATA, st.id, n === chunk.length ? chunk : chunk.subarray(0, n), transient, true);
      }
      if (n < chunk.length) {
        st.pending = transient ? Buffer.from(chunk.subarray(n)) : chunk.subarray(n);
        socket.pause();
      } else if (this.blocked) {
        st.blocked = true;
        this.blockedStreams.add(st);
        socket.pause();
      }
    };
    // The early bytes first, then what the socket holds (a paused socket's buffer), then new reads.
    if (early?.length) onChunk(early, false);
    if (socket instanceof RawSocket) socket.readInto((c) => onChunk(c, true));
    else if (!(socket instanceof net.Socket && readIntoOwnBuffer(socket, (c) => onChunk(c, true))))
      socket.on('data', (c: Buffer) => onChunk(c, false));
    const onEnd = () => {
      if (st.closed) return;
      if (st.pending) st.finPending = true;
      else this.sendFin(st);
    };
    // Both kinds of socket are event emitters with these events.
    const events: EventEmitter = socket;
    if (ended) onEnd();
    else events.on('end', onEnd);
    events.on('drain', () => {
      if (st.unflushed > 0) {
        const n = st.unflushed;
        st.unflushed = 0;
        this.grant(st, n);
      }
    });
    events.on('error', () => {});
    events.on('close', () => {
      if (st.closed) return;
      // A clean local EOF whose last bytes wait for window: finish when they and the FIN are sent.
      if (st.finPending) st.localClosed = true;
      else this.finish(st);
    });
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
    this.blockedStreams.delete(st);
  }

  /** Gateway side: a stream still waiting for its OPEN answer fails with a general failure. */
  private failPendingOpen(st: MuxStream): void {
    const cb = st.onOpenResult;
    if (!cb) return;
    st.onOpenResult = null;
    cb(0x01);
  }

  /** Tears the tunnel down; every stream's socket is destroyed. */
  destroy(err?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.keepalive.stop();
    this.writer.clear();
    this.socket.destroy();
    for (const st of this.streams.values()) {
      st.closed = true;
      st.end = 'tunnel';
      this.failPendingOpen(st);
      abort(st.socket);
    }
    this.streams.clear();
    this.blockedStreams.clear();
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

  private tryResume(st: MuxStream): void {
    if (st.closed || !st.socket || st.pending || st.sendWindow <= 0) return;
    if (this.blocked) {
      // The tunnel is full: resume this stream with the others on the tunnel's drain.
      st.blocked = true;
      this.blockedStreams.add(st);
      return;
    }
    st.blocked = false;
    st.socket.resume();
  }

  private onDrain(): void {
    if (!this.blocked || this.socket.writableLength > TUNNEL_HIGH_WATER) return;
    this.blocked = false;
    const list = [...this.blockedStreams];
    this.blockedStreams.clear();
    for (const st of list) this.tryResume(st);
  }

  private onData(id: number, piece: Buffer): void {
    const st = this.streams.get(id);
    if (!st?.socket || st.closed) return;
    st.recvBytes += piece.length;
    st.outstanding += piece.length;
    if (st.outstanding > this.window) {
      // The peer ignored our window: abort the stream rather than buffer without bound.
      this.reset(st);
      return;
    }
    localWrites.stage(st, piece);
    if (this.inTunnelRead) this.localPending = true;
    else this.scheduleFlush();
  }

  private onFrame(type: number, id: number, payload: Buffer): void {
    switch (type) {
      case T_WINDOW: {
        const st = this.streams.get(id);
        if (!st || st.closed || payload.length !== 4) return;
        st.sendWindow += payload.readUInt32BE(0);
        if (st.pending) {
          const p = st.pending;
          const n = Math.min(p.length, st.sendWindow);
          st.sendWindow -= n;
          this.writeFrame(T_DATA, id, n === p.length ? p : p.subarray(0, n));
          st.pending = n === p.length ? null : p.subarray(n);
          if (!st.pending && st.finPending) {
            st.finPending = false;
            this.sendFin(st);
            if (st.localClosed) {
              this.finish(st);
              return;
            }
          }
        }
        this.tryResume(st);
        return;
      }
      case T_FIN: {
        const st = this.streams.get(id);
        if (!st || st.closed) return;
        st.finRecv = true;
        localWrites.flushStream(st);
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
        if (!st?.onOpenResult) return;
        const cb = st.onOpenResult;
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
