import { FRAME_HEADER_BYTES } from './frames.ts';
import { type Slab, SlabPool } from './slab-pool.ts';

const SLAB_BYTES = 1024 * 1024;
/**
 * Payloads up to this size (a socket read's) are copied next to their header, so that a flush is
 * mostly one piece; larger ones are queued by reference. A TLS socket joins the pieces of a
 * `writev` into a fresh buffer anyway, so the copy costs nothing more and saves that allocation;
 * it also lets local sockets read into one reused buffer (`onread`).
 */
export const COPY_MAX = 64 * 1024;

/** One pool for every tunnel of the process: a gateway with thousands of agents keeps one slab. */
const pool = new SlabPool(SLAB_BYTES);

/** What one `take()` hands out: the pieces to write, in order, and what to call once written. */
export interface Batch {
  pieces: Buffer[];
  /** Releases the batch's slab bytes: call once the socket is done with the pieces (or failed). */
  done: () => void;
}

const NOTHING: Batch = { pieces: [], done: () => {} };

function releaseAll(slabs: Slab[]): void {
  for (const s of slabs) s.release();
}

/**
 * Encodes tunnel frames into as few buffers as possible for one write: headers and payloads up to
 * `COPY_MAX` are copied into the shared slab, where a tunnel's consecutive frames form one piece;
 * larger payloads are queued as they are.
 */
export class FrameWriter {
  /** Bytes queued since the last `take()`. */
  bytes = 0;
  private out: Buffer[] = [];
  /** The slabs the queued pieces lie in (one hold each). */
  private held: Slab[] = [];
  /** The slab this writer's open piece lies in (holding it), and the piece's bounds. */
  private region: Slab | null = null;
  private start = 0;
  private end = 0;

  /** Queues one frame; a payload over `COPY_MAX` must stay unchanged until its batch is written. */
  append(type: number, streamId: number, payload: Buffer): void {
    const len = payload.length;
    const copy = len <= COPY_MAX;
    const need = FRAME_HEADER_BYTES + (copy ? len : 0);
    // The open piece grows only while nothing else was put in the slab after it.
    let slab = pool.current;
    if (this.region !== slab || this.end !== slab.used || slab.used + need > SLAB_BYTES) {
      this.seal();
      slab = pool.room(need);
      this.region = slab;
      slab.holds++;
      this.start = this.end = slab.used;
    }
    const b = slab.buf;
    let o = this.end;
    b[o] = type;
    b.writeUInt32BE(streamId, o + 1);
    b.writeUInt32BE(len, o + 5);
    o += FRAME_HEADER_BYTES;
    if (copy && len) o += payload.copy(b, o);
    this.end = slab.used = o;
    if (!copy) {
      this.seal();
      this.out.push(payload);
    }
    this.bytes += FRAME_HEADER_BYTES + len;
  }

  /** Everything queued so far, in order; the writer is empty afterwards. */
  take(): Batch {
    this.seal();
    const pieces = this.out;
    if (!pieces.length) return NOTHING;
    const held = this.held;
    this.out = [];
    this.held = [];
    this.bytes = 0;
    // Mostly one slab: its own pre-bound release, no closure per flush.
    const done = held.length === 1 ? held[0].release : held.length ? () => releaseAll(held) : NOTHING.done;
    return { pieces, done };
  }

  /** Drops everything queued (the tunnel is gone). */
  clear(): void {
    this.seal();
    releaseAll(this.held);
    this.out = [];
    this.held = [];
    this.bytes = 0;
  }

  /** Moves the open piece into the output queue, its hold with it. */
  private seal(): void {
    const r = this.region;
    if (!r) return;
    this.region = null;
    if (this.end > this.start) {
      this.out.push(r.buf.subarray(this.start, this.end));
      this.held.push(r);
    } else {
      r.release();
    }
    this.start = this.end;
  }
}
