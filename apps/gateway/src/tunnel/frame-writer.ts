import { FRAME_HEADER_BYTES } from './frames.ts';

const SLAB_BYTES = 256 * 1024;
/** Payloads up to this size are copied next to their header; larger ones are queued by reference. */
const COPY_MAX = 2048;

/**
 * One staging slab for every tunnel of the process, handed out front to back and never reused
 * (a queued write may still hold its part): a gateway with thousands of agents keeps one slab,
 * not one per tunnel.
 */
let slab = Buffer.allocUnsafe(SLAB_BYTES);
let slabUsed = 0;

/**
 * Encodes tunnel frames into as few buffers as possible for one write: headers and small payloads
 * (and any payload that is only valid during the call) are copied into the shared slab, where a
 * tunnel's consecutive frames form one piece; other large payloads are queued as they are.
 */
export class FrameWriter {
  /** Bytes queued since the last `take()`. */
  bytes = 0;
  private out: Buffer[] = [];
  /** The slab this writer's open piece lies in, and the piece's bounds. */
  private region: Buffer | null = null;
  private start = 0;
  private end = 0;

  /** `transient`: the payload is only valid during the call (a shared read buffer), so it is copied. */
  append(type: number, streamId: number, payload: Buffer, transient = false): void {
    const len = payload.length;
    const copy = len <= COPY_MAX || (transient && len <= SLAB_BYTES - FRAME_HEADER_BYTES);
    const need = FRAME_HEADER_BYTES + (copy ? len : 0);
    // The open piece grows only while nothing else was put in the slab after it.
    if (this.region !== slab || this.end !== slabUsed || slabUsed + need > SLAB_BYTES) {
      this.seal();
      if (slabUsed + need > SLAB_BYTES) {
        slab = Buffer.allocUnsafe(SLAB_BYTES);
        slabUsed = 0;
      }
      this.region = slab;
      this.start = this.end = slabUsed;
    }
    const b = slab;
    let o = this.end;
    b[o] = type;
    b.writeUInt32BE(streamId, o + 1);
    b.writeUInt32BE(len, o + 5);
    o += FRAME_HEADER_BYTES;
    if (copy && len) o += payload.copy(b, o);
    this.end = slabUsed = o;
    if (!copy) {
      this.seal();
      this.out.push(payload);
    }
    this.bytes += FRAME_HEADER_BYTES + len;
  }

  /** Everything queued so far, in order; the writer is empty afterwards. */
  take(): Buffer[] {
    this.seal();
    const out = this.out;
    if (out.length) {
      this.out = [];
      this.bytes = 0;
    }
    return out;
  }

  /** Drops everything queued (the tunnel is gone). */
  clear(): void {
    this.out = [];
    this.bytes = 0;
    this.region = null;
  }

  /** Moves the open piece into the output queue. */
  private seal(): void {
    if (this.region && this.end > this.start) this.out.push(this.region.subarray(this.start, this.end));
    this.start = this.end;
  }
}
