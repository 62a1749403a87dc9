import type { EventEmitter } from 'node:events';

/** Default per-stream receive window. */
export const DEFAULT_WINDOW = 512 * 1024;
/** Tunnel write buffer above which stream sources are paused. */
export const TUNNEL_HIGH_WATER = 1024 * 1024;
/**
 * A tunnel with at most this many streams, nothing in flight and under SOON_BYTES staged writes its
 * frames right after the callback that made them, not after the loop's I/O phase. Node reports a
 * TLS write back through a native immediate: one queued from the poll phase runs in the same
 * iteration's check phase, one queued from our own immediate costs the loop an iteration of its
 * own. With few streams there is little for a batch to gather; with many, a second write per
 * iteration cost more than it saved (docs/benchmarks.md, 20:30 UTC).
 */
export const SOON_STREAMS = 4;
export const SOON_BYTES = 1024;

/**
 * When a tunnel writes its queued frames. SOON: right after the callback that queued them (a quiet
 * tunnel, SOON_STREAMS); AFTER_IO: after this iteration's I/O callbacks, one write for everything a
 * poll brought; AFTER_NEXT_POLL: after the next iteration's, so that a local FIN read there rides
 * along (`awaitLocalFin`).
 */
export const SOON = 0;
export const AFTER_IO = 1;
export const AFTER_NEXT_POLL = 2;
export type FlushAt = typeof SOON | typeof AFTER_IO | typeof AFTER_NEXT_POLL;

export interface MuxOptions {
  /** Receive window granted per stream (bytes). */
  window?: number;
  /** Send window per stream until the peer announces its own. */
  peerWindow?: number;
  /** Keepalive: PING interval; the tunnel is closed after `idleTimeoutMs` without any byte received. */
  pingIntervalMs?: number;
  idleTimeoutMs?: number;
  /**
   * DATA read from a local socket waits for one more poll of the loop before it is written, so that
   * a FIN the socket received right behind its last bytes rides in the same tunnel write. The agent
   * sets it: targets often answer and close (HTTP with `Connection: close`, TLS close_notify), and
   * then the gateway gets answer and end of file in one record instead of two.
   */
  awaitLocalFin?: boolean;
  /** Frames other than DATA/WINDOW/FIN/RST/PING/PONG/OPEN_OK/OPEN_FAIL (HELLO, WELCOME, REJECT, OPEN). */
  onControl: (type: number, streamId: number, payload: Buffer) => void;
  /** Called once when the tunnel is gone. */
  onClose?: (err?: Error) => void;
}

/** What the mux needs of its connection: a socket (TLS or not), or the sealed-record socket. */
export interface TunnelTransport extends EventEmitter {
  readonly writableLength: number;
  readonly remoteAddress?: string;
  write(data: Buffer, cb?: () => void): boolean;
  cork(): void;
  uncork(): void;
  setNoDelay(on?: boolean): unknown;
  destroy(): unknown;
  /** Hands each read to `onChunk`, valid only during the call (else: Node's own-buffer reads). */
  readInto?(onChunk: (chunk: Buffer) => void): void;
}
