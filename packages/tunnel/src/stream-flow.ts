import type { MuxStream } from './mux-stream.ts';

/** What the send side of the streams needs from their tunnel. */
export interface FlowHost {
  /** The tunnel's queue is past its high-water mark (`FrameOutput.blocked`). */
  isBlocked(): boolean;
  /** The queue fell back under the mark: clears `isBlocked`, true when it did. */
  unblock(): boolean;
  sendData(st: MuxStream, payload: Buffer): void;
  sendFin(st: MuxStream): void;
  /** Forgets a stream whose local socket closed (after its last bytes and FIN went out). */
  finish(st: MuxStream): void;
}

/**
 * The send side of a tunnel's streams: bytes a local socket read that the peer's window or a full
 * tunnel holds back (`st.pending`), the socket paused meanwhile, and sent, with a FIN that waited
 * behind them, when a WINDOW comes or the tunnel drains.
 */
export class StreamFlow {
  private readonly host: FlowHost;
  /** Streams waiting for the tunnel to drain. */
  private readonly waiting = new Set<MuxStream>();

  constructor(host: FlowHost) {
    this.host = host;
  }

  /** Pauses a stream's source until its window or the tunnel's drain lets `pump` send again. */
  holdBack(st: MuxStream): void {
    st.socket?.pause();
    this.park(st);
  }

  /** Sends what a stream holds back as far as its window and the tunnel allow, then its FIN; resumes it. */
  pump(st: MuxStream): void {
    const p = st.pending;
    if (p && !this.host.isBlocked() && st.sendWindow > 0) {
      const n = Math.min(p.length, st.sendWindow);
      st.sendWindow -= n;
      st.pending = n === p.length ? null : p.subarray(n);
      this.host.sendData(st, n === p.length ? p : p.subarray(0, n));
    }
    if (!st.pending && st.finPending) {
      st.finPending = false;
      this.host.sendFin(st);
      if (st.localClosed) {
        this.host.finish(st);
        return;
      }
    }
    this.tryResume(st);
  }

  /** The tunnel's socket drained: every waiting stream sends and resumes. */
  drained(): void {
    if (!this.host.unblock()) return;
    const list = [...this.waiting];
    this.waiting.clear();
    for (const st of list) this.pump(st);
  }

  /** Drops a stream that ended. */
  forget(st: MuxStream): void {
    this.waiting.delete(st);
  }

  /** Drops every stream (the tunnel is gone). */
  clear(): void {
    this.waiting.clear();
  }

  /** While the tunnel is full, a stream waits for its drain with the others (true then). */
  private park(st: MuxStream): boolean {
    if (!this.host.isBlocked()) return false;
    st.blocked = true;
    this.waiting.add(st);
    return true;
  }

  private tryResume(st: MuxStream): void {
    if (st.closed || !st.socket || this.park(st)) return;
    st.blocked = false;
    if (!st.pending && st.sendWindow > 0) st.socket.resume();
  }
}
