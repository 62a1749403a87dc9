import type net from 'node:net';
import type { Duplex } from 'node:stream';

/** A stream's local end: a customer or target `net.Socket`, or any Duplex (probes, tests). */
export type LocalSocket = Duplex;

/** Aborts a local socket so that its peer sees a reset, never a clean end passing for the whole answer. */
export function abort(socket: LocalSocket | null): void {
  if (!socket || socket.destroyed) return;
  const tcp = socket as Partial<net.Socket>;
  // libuv refuses a reset once a shutdown was requested, and Node then never closes the handle: after
  // our FIN the peer has its answer's end already, so a plain close is right there.
  if (tcp.resetAndDestroy && !socket.writableEnded) tcp.resetAndDestroy();
  else socket.destroy();
}

/**
 * Where a stream with a byte allowance gets more (a port package's volume on the gateway). Asked
 * only when a chunk overdraws `allowance`: it adds what it can spare and answers whether the
 * allowance is back at zero or above; when not, the stream relays what was covered and is reset.
 */
export interface StreamBudget {
  refill(st: MuxStream): boolean;
}

/** Why a stream ended, as the owner of its local socket sees it. */
export type StreamEnd = 'closed' | 'reset' | 'tunnel';

/**
 * One multiplexed stream bound to a local socket (customer socket on the gateway, target
 * socket on the agent). Counts payload bytes in each direction.
 */
export class MuxStream {
  readonly id: number;
  /** The local end: a TCP socket, or any Duplex (probes through `GatewayHandle.dial`). */
  socket: LocalSocket | null = null;
  sendWindow: number;
  /** Bytes read from the local socket and sent into the tunnel. */
  sentBytes = 0;
  /** Bytes received from the tunnel and written to the local socket. */
  recvBytes = 0;
  /**
   * Bytes this stream may still relay, both directions together; each chunk subtracts its length
   * and only an overdraft asks `budget` (one subtraction and one comparison per chunk). Unlimited
   * unless the owner sets a budget.
   */
  allowance = Number.POSITIVE_INFINITY;
  budget: StreamBudget | null = null;
  closed = false;
  end: StreamEnd | null = null;
  /** Gateway side: answer to OPEN (0 ok, else SOCKS reply code). */
  onOpenResult: ((code: number) => void) | null = null;
  pending: Buffer | null = null;
  finPending = false;
  /** The local socket closed while read bytes still waited for window: they and the FIN go out first. */
  localClosed = false;
  finSent = false;
  finRecv = false;
  credit = 0;
  unflushed = 0;
  outstanding = 0;
  blocked = false;
  constructor(id: number, sendWindow: number) {
    this.id = id;
    this.sendWindow = sendWindow;
  }
}

/**
 * A chunk of `n` bytes overdrew the stream's allowance: `n` when its budget refilled it, else the
 * part the allowance still covered (the allowance is then spent). Off the per-chunk path.
 */
export function coveredBytes(st: MuxStream, n: number): number {
  if (st.budget?.refill(st)) return n;
  const covered = n + st.allowance;
  st.allowance = 0;
  return covered > 0 ? covered : 0;
}
