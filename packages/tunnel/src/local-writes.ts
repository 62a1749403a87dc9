import type { MuxStream } from './mux-stream.ts';

/**
 * Staged bytes up to which `flushIfFew` writes at once: a request or an answer alone in its tunnel
 * read leaves before the loop's other work, and saves the immediate; a bulk read's records still
 * gather into one write per socket after the loop's I/O phase (docs/gateway.md, "Data path").
 */
const FEW_BYTES = 4096;

/**
 * DATA payloads on their way to the streams' local sockets. A payload is a piece of the tunnel
 * read's own buffer, so it is written by reference; the socket is corked at its first payload and
 * uncorked at the flush, so each stream's payloads of one loop iteration leave in one system call
 * (`writev`) whatever the number of frames they came in.
 */
export class LocalWrites {
  private corked: MuxStream[] = [];
  /** Bytes staged since the last flush. */
  private stagedBytes = 0;

  /** Writes `piece` to the stream's socket, corked until the flush. */
  stage(st: MuxStream, piece: Buffer): void {
    const socket = st.socket;
    if (st.closed || !socket || socket.destroyed || socket.writableEnded) return;
    if (!st.corked) {
      st.corked = true;
      socket.cork();
      this.corked.push(st);
    }
    this.stagedBytes += piece.length;
    const accepted = socket.write(piece);
    st.onLocalWritten?.(piece.length, accepted);
  }

  /** Writes the stream's staged bytes now (before its socket is ended). */
  flushStream(st: MuxStream): void {
    if (!st.corked) return;
    st.corked = false;
    st.socket?.uncork();
  }

  /** Writes the staged bytes now if they are few (true); else leaves them for the caller's flush. */
  flushIfFew(): boolean {
    if (this.stagedBytes > FEW_BYTES) return false;
    this.flush();
    return true;
  }

  /** Uncorks every socket that got payloads since the last flush. */
  flush(): void {
    this.stagedBytes = 0;
    const list = this.corked;
    if (!list.length) return;
    this.corked = [];
    for (const st of list) this.flushStream(st);
  }
}

/** The process's one instance: every tunnel's flush writes what any tunnel staged. */
export const localWrites = new LocalWrites();
