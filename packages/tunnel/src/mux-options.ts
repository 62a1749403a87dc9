import type net from 'node:net';

/** Default per-stream receive window. */
export const DEFAULT_WINDOW = 512 * 1024;
/** Tunnel write buffer above which stream sources are paused (no DATA is queued past it). */
export const TUNNEL_HIGH_WATER = 1024 * 1024;
/**
 * Past the high-water mark only control frames can still be queued (WINDOW, FIN, PONG, ...): a
 * queue that grows to twice the mark belongs to a peer that does not read, and the tunnel is dropped.
 */
export const TUNNEL_DROP_WATER = 2 * TUNNEL_HIGH_WATER;
/**
 * Records a tunnel may carry in either direction under one set of TLS keys: RFC 8446 section 5.5
 * allows AES-GCM about 2^24.5 full-size records per key. Node offers no key update, so the tunnel
 * closes itself at this count and the reconnect brings fresh keys; at half of it the agent is asked
 * to dial a fresh tunnel, and the old one serves its streams to their end (`onRenewDue`).
 */
export const RECORD_LIMIT = 2 ** 24;
/**
 * The agent's PING period a gateway asks for in WELCOME (`pingMs`; agents from before it ping every
 * 15 s, and the gateway answers those too). A PING is a TLS record each way through both processes'
 * JavaScript: 2,000 a second at 30,000 agents every 15 s, the most of an idle fleet's CPU. A vanished
 * peer is found by the kernel's TCP keepalive instead (`TCP_KEEPALIVE_MS`); the PING is left to
 * prove the peer's process alive (a tunnel silent for three periods is closed).
 */
export const AGENT_PING_MS = 60_000;
/**
 * Idle time after which the kernel probes a tunnel's TCP connection (`setKeepAlive`; libuv then
 * sends 10 probes 1 s apart): a peer gone from the network is found 25 s after its last packet,
 * with no record, no system call and no JavaScript of ours, and NAT mappings are kept warm.
 */
export const TCP_KEEPALIVE_MS = 15_000;
/** Largest TLS record payload: a write of n bytes makes at most ceil(n / this) records. */
export const TLS_RECORD_BYTES = 16 * 1024;
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
   * PING only after an interval in which nothing was heard (the gateway: its agents PING every
   * interval, and their PINGs already prove the tunnel alive, so its own PINGs and their PONGs
   * only doubled the idle traffic of a fleet). The idle timeout is unchanged.
   */
  pingOnlyWhenSilent?: boolean;
  /**
   * DATA read from a local socket waits for one more poll of the loop before it is written, so that
   * a FIN the socket received right behind its last bytes rides in the same tunnel write. The agent
   * sets it: targets often answer and close (HTTP with `Connection: close`, TLS close_notify), and
   * then the gateway gets answer and end of file in one record instead of two.
   */
  awaitLocalFin?: boolean;
  /**
   * The gateway's side before the agent's HELLO was verified: every frame goes to `onControl`
   * (which accepts HELLO alone), DATA closes the tunnel, nothing is answered and no PING is sent,
   * until `authenticated()` is called.
   */
  preAuth?: boolean;
  /** Records per direction before the tunnel closes itself (default `RECORD_LIMIT`; tests lower it). */
  recordLimit?: number;
  /** Called once when either direction passed half of `recordLimit`: time to dial a fresh tunnel. */
  onRenewDue?: () => void;
  /** Frames other than DATA/WINDOW/FIN/RST/PING/PONG/OPEN_OK/OPEN_FAIL (HELLO, WELCOME, REJECT, OPEN, RENEW). */
  onControl: (type: number, streamId: number, payload: Buffer) => void;
  /** Called once when the tunnel is gone. */
  onClose?: (err?: Error) => void;
}

/** The tunnel's connection: a TLS socket, or a plain one on loopback (devnet, benchmark, tests). */
export type TunnelTransport = net.Socket;
