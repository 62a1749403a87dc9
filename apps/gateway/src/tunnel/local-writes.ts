import net from 'node:net';
import type { MuxStream } from './mux-stream.ts';

const SLAB_BYTES = 256 * 1024;

/**
 * DATA payloads on their way to the streams' local sockets. The tunnels' reads land in one reused
 * buffer, so each payload is copied here, into one slab shared by all streams of the process, and
 * each stream's bytes go to its socket in one write at the flush (the tunnel that staged them
 * flushes after this loop iteration's I/O). A slab whose every write the kernel took at once is used
 * again; one a socket still holds is left to it and a new slab begins.
 */
export class LocalWrites {
  private slab = Buffer.allocUnsafe(SLAB_BYTES);
  private used = 0;
  /** Some socket still holds bytes of this slab (its write did not complete at once). */
  private held = false;
  private staged: MuxStream[] = [];

  /** Copies `piece` (only valid during the call) for the stream's socket. */
  stage(st: MuxStream, piece: Buffer): void {
    const len = piece.length;
    if (len > SLAB_BYTES - this.used) this.flush();
    if (len > SLAB_BYTES) {
      // Larger than a slab (a 'data' chunk of a Node without own-buffer reads): it is ours to keep.
      this.write(st, Buffer.from(piece));
      return;
    }
    const start = this.used;
    piece.copy(this.slab, start);
    this.used += len;
    if (st.stagedEnd === start && st.stagedEnd > st.stagedStart) {
      st.stagedEnd += len;
      return;
    }
    // Another stream's bytes lie between: what this one had staged goes first.
    if (st.stagedEnd > st.stagedStart) this.writeStaged(st);
    else this.staged.push(st);
    st.stagedStart = start;
    st.stagedEnd = start + len;
  }

  /** Writes the stream's staged bytes now (before its socket is ended). */
  flushStream(st: MuxStream): void {
    if (st.stagedEnd > st.stagedStart) this.writeStaged(st);
  }

  /** Writes every stream's staged bytes; the slab is reused if no socket holds any of it. */
  flush(): void {
    const list = this.staged;
    if (list.length) {
      this.staged = [];
      for (const st of list) if (st.stagedEnd > st.stagedStart) this.writeStaged(st);
    }
    if (this.held) {
      this.slab = Buffer.allocUnsafe(SLAB_BYTES);
      this.held = false;
    }
    this.used = 0;
  }

  private writeStaged(st: MuxStream): void {
    const piece = this.slab.subarray(st.stagedStart, st.stagedEnd);
    st.stagedStart = st.stagedEnd = 0;
    this.write(st, piece);
  }

  private write(st: MuxStream, piece: Buffer): void {
    const socket = st.socket;
    if (st.closed || !socket || socket.destroyed || socket.writableEnded) return;
    // A TCP socket's write is done with the bytes once `writableLength` is back to 0; another Duplex
    // (a socket pair's end) may keep the very buffer it was given, so it gets a copy.
    const tcp = socket instanceof net.Socket;
    const accepted = socket.write(tcp ? piece : Buffer.from(piece));
    if (tcp && socket.writableLength > 0) this.held = true;
    st.onLocalWritten?.(piece.length, accepted);
  }
}

/** The process's one instance: a gateway with thousands of agent tunnels keeps one slab. */
export const localWrites = new LocalWrites();
