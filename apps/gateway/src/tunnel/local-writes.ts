import net from 'node:net';
import type { MuxStream } from './mux-stream.ts';
import { RawSocket } from './raw-tcp.ts';
import { abandon, type Slab, SlabPool } from './slab-pool.ts';

const SLAB_BYTES = 256 * 1024;
/**
 * Staged bytes up to which `flushIfFew` writes at once: a request or an answer alone in its tunnel
 * read leaves before the loop's other work, and saves the immediate; a bulk read's records still
 * gather into one write per socket after the loop's I/O phase (docs/gateway.md, "Reads and copies").
 */
const FEW_BYTES = 4096;

/**
 * DATA payloads on their way to the streams' local sockets. The tunnels' reads land in one reused
 * buffer, so each payload is copied here, into one slab shared by all streams of the process, and
 * each stream's bytes go to its socket in one write at the flush (the tunnel that staged them
 * flushes after this loop iteration's I/O). Every write holds its slab until its callback.
 */
export class LocalWrites {
  private readonly pool = new SlabPool(SLAB_BYTES);
  /** The slab the staged bytes lie in (one hold for all of them until the flush). */
  private slab: Slab | null = null;
  private staged: MuxStream[] = [];
  /** Bytes staged since the last flush (an upper bound: `flushStream` does not subtract its own). */
  private stagedBytes = 0;

  /** Copies `piece` (only valid during the call) for the stream's socket. */
  stage(st: MuxStream, piece: Buffer): void {
    const len = piece.length;
    if (this.slab && len > SLAB_BYTES - this.slab.used) this.flush();
    this.stagedBytes += len;
    if (len > SLAB_BYTES) {
      // Larger than a slab (a 'data' chunk of a Node without own-buffer reads): it is ours to keep.
      this.write(st, Buffer.from(piece), null);
      return;
    }
    if (!this.slab) {
      this.slab = this.pool.room(len);
      this.slab.holds++;
    }
    const slab = this.slab;
    const start = slab.used;
    piece.copy(slab.buf, start);
    slab.used += len;
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

  /** Writes the staged bytes now if they are few (true); else leaves them for the caller's flush. */
  flushIfFew(): boolean {
    if (this.stagedBytes > FEW_BYTES) return false;
    this.flush();
    return true;
  }

  /** Writes every stream's staged bytes; their slab goes back to the pool once every write is done. */
  flush(): void {
    this.stagedBytes = 0;
    const list = this.staged;
    if (list.length) {
      this.staged = [];
      for (const st of list) if (st.stagedEnd > st.stagedStart) this.writeStaged(st);
    }
    const slab = this.slab;
    if (slab) {
      this.slab = null;
      slab.release();
    }
  }

  private writeStaged(st: MuxStream): void {
    const slab = this.slab!;
    const piece = slab.buf.subarray(st.stagedStart, st.stagedEnd);
    st.stagedStart = st.stagedEnd = 0;
    this.write(st, piece, slab);
  }

  private write(st: MuxStream, piece: Buffer, slab: Slab | null): void {
    const socket = st.socket;
    if (st.closed || !socket || socket.destroyed || socket.writableEnded) return;
    let accepted: boolean;
    if (slab && socket instanceof RawSocket) {
      // Its callback comes inside the call when the kernel takes it all: no tick to pay for.
      slab.holds++;
      accepted = socket.write(piece, slab.release);
    } else if (slab && socket instanceof net.Socket) {
      if (socket.writableLength > 0) {
        // Queued behind a write in flight: the slab is held until this one's callback.
        slab.holds++;
        accepted = socket.write(piece, slab.release);
      } else {
        // Straight to the kernel, mostly taken at once. A callback would cost every such write a
        // tick; if the kernel took only part, the socket keeps the slab for good (`abandon`).
        accepted = socket.write(piece);
        if (socket.writableLength > 0) abandon(slab);
      }
    } else {
      // Another Duplex (a socket pair's end) may keep the very buffer it was given: it gets a copy.
      accepted = socket.write(slab ? Buffer.from(piece) : piece);
    }
    st.onLocalWritten?.(piece.length, accepted);
  }
}

/** The process's one instance: a gateway with thousands of agent tunnels keeps one slab. */
export const localWrites = new LocalWrites();
