import { FRAME_HEADER_BYTES } from './frames.ts';

const STAGE_BYTES = 256 * 1024;
/** Payloads up to this size are copied next to their header; larger ones are queued by reference. */
const COPY_MAX = 2048;

/**
 * Encodes tunnel frames into as few buffers as possible for one write: headers and small payloads
 * go into a staging buffer, large payloads are queued as they are.
 */
export class FrameWriter {
  /** Bytes queued since the last `take()`. */
  bytes = 0;
  private out: Buffer[] = [];
  private stage = Buffer.allocUnsafe(STAGE_BYTES);
  private stageStart = 0;
  private stageEnd = 0;

  /** `transient`: the payload is only valid during the call (a shared read buffer), so it is copied. */
  append(type: number, streamId: number, payload: Buffer, transient = false): void {
    const len = payload.length;
    const copy = len <= COPY_MAX || (transient && len <= STAGE_BYTES - FRAME_HEADER_BYTES);
    if (this.stageEnd + FRAME_HEADER_BYTES + (copy ? len : 0) > STAGE_BYTES) {
      this.seal();
      // The old staging buffer may still be referenced by queued writes: start a fresh one.
      this.stage = Buffer.allocUnsafe(STAGE_BYTES);
      this.stageStart = this.stageEnd = 0;
    }
    const b = this.stage;
    let o = this.stageEnd;
    b[o] = type;
    b.writeUInt32BE(streamId, o + 1);
    b.writeUInt32BE(len, o + 5);
    o += FRAME_HEADER_BYTES;
    if (copy) {
      if (len) o += payload.copy(b, o);
      this.stageEnd = o;
    } else {
      this.stageEnd = o;
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
  }

  /** Moves the filled part of the staging buffer into the output queue. */
  private seal(): void {
    if (this.stageEnd === this.stageStart) return;
    this.out.push(this.stage.subarray(this.stageStart, this.stageEnd));
    this.stageStart = this.stageEnd;
  }
}
