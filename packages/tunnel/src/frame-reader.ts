import { FRAME_HEADER_BYTES, MAX_CONTROL_FRAME, MAX_DATA_FRAME, T_DATA } from './frames.ts';

const EMPTY = Buffer.alloc(0);

export interface FrameSink {
  /** A DATA frame's header: its stream and payload size, before any of the payload. */
  onDataFrame?(id: number, size: number): void;
  /** A piece of a DATA frame's payload, as it arrives (not reassembled). */
  onData(id: number, piece: Buffer): void;
  /** A whole control frame. */
  onFrame(type: number, id: number, payload: Buffer): void;
  onProtocolError(err: Error): void;
  isClosed(): boolean;
}

/** Decodes the tunnel's byte stream into frames, across chunk boundaries. */
export class FrameReader {
  private readonly sink: FrameSink;
  private readonly hdr = Buffer.alloc(FRAME_HEADER_BYTES);
  private hdrLen = 0;
  private type = 0;
  private sid = 0;
  private remaining = 0;
  private inPayload = false;
  private ctrl: Buffer = EMPTY;
  private ctrlOff = 0;

  constructor(sink: FrameSink) {
    this.sink = sink;
  }

  push(chunk: Buffer): void {
    let off = 0;
    const len = chunk.length;
    while (off < len && !this.sink.isClosed()) {
      if (!this.inPayload) {
        let type: number;
        let id: number;
        let size: number;
        if (this.hdrLen === 0 && len - off >= FRAME_HEADER_BYTES) {
          type = chunk[off]!;
          id = chunk.readUInt32BE(off + 1);
          size = chunk.readUInt32BE(off + 5);
          off += FRAME_HEADER_BYTES;
        } else {
          const n = Math.min(FRAME_HEADER_BYTES - this.hdrLen, len - off);
          chunk.copy(this.hdr, this.hdrLen, off, off + n);
          this.hdrLen += n;
          off += n;
          if (this.hdrLen < FRAME_HEADER_BYTES) return;
          this.hdrLen = 0;
          type = this.hdr[0]!;
          id = this.hdr.readUInt32BE(1);
          size = this.hdr.readUInt32BE(5);
        }
        this.type = type;
        this.sid = id;
        if (type === T_DATA) {
          if (size > MAX_DATA_FRAME) {
            this.sink.onProtocolError(new Error('tunnel: oversized DATA frame'));
            return;
          }
          this.remaining = size;
          this.inPayload = size > 0;
          this.sink.onDataFrame?.(id, size);
        } else {
          if (size > MAX_CONTROL_FRAME) {
            this.sink.onProtocolError(new Error('tunnel: oversized control frame'));
            return;
          }
          if (size === 0) {
            this.sink.onFrame(type, id, EMPTY);
          } else {
            this.ctrl = Buffer.allocUnsafe(size);
            this.ctrlOff = 0;
            this.remaining = size;
            this.inPayload = true;
          }
        }
      } else {
        const n = Math.min(this.remaining, len - off);
        if (this.type === T_DATA) {
          this.sink.onData(this.sid, n === len && off === 0 ? chunk : chunk.subarray(off, off + n));
        } else {
          chunk.copy(this.ctrl, this.ctrlOff, off, off + n);
          this.ctrlOff += n;
        }
        off += n;
        this.remaining -= n;
        if (this.remaining === 0) {
          this.inPayload = false;
          if (this.type !== T_DATA) {
            const payload = this.ctrl;
            this.ctrl = EMPTY;
            this.sink.onFrame(this.type, this.sid, payload);
          }
        }
      }
    }
  }
}
