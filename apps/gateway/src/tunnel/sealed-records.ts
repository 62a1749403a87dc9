import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * AES-128-GCM records for the agent tunnel, sealed and opened by the native addon
 * `apps/gateway/native/tunnel-aead.c` (built at `npm install`), which keeps its cipher context from
 * one record to the next. A record is a u32 big-endian length N, then N bytes: ciphertext and the
 * 16-byte tag; the length is the additional data; the nonce is the IV with the record's sequence
 * number XORed into its last 8 bytes (TLS 1.3's construction). Keys come from the tunnel's TLS
 * handshake (`sealed-handshake.ts`). Why: docs/gateway.md, "Sealed tunnel records".
 */
export const RECORD_HEADER_BYTES = 4;
export const TAG_BYTES = 16;
/**
 * Plaintext per record at most; a longer write is sealed into several records. As TLS's: most
 * records then lie whole in one 64 KiB read and are opened in place.
 */
export const MAX_RECORD_PLAINTEXT = 16 * 1024;
const MAX_RECORD_BODY = MAX_RECORD_PLAINTEXT + TAG_BYTES;
const MAX_RECORD = RECORD_HEADER_BYTES + MAX_RECORD_BODY;
/** Buffers for records split over reads, shared by the process's tunnels (taken only while one is split). */
const gatherSpares: Buffer[] = [];
const MAX_GATHER_SPARES = 16;

/** The addon's functions (`native/tunnel-aead.c`). */
export interface SealedAddon {
  create(key: Buffer, iv: Buffer, encrypt: boolean): object;
  seal(sealer: object, pieces: Buffer[], out: Buffer, offset: number): number;
  open(opener: object, buf: Buffer, start: number, end: number): number;
}

let addon: SealedAddon | null | undefined;

/**
 * The addon, or null where it was not built or `PM_TUNNEL_RECORDS=tls` asks for Node's TLS records
 * (the fallback, and the benchmark's comparison).
 */
export function sealedRecordsAddon(): SealedAddon | null {
  if (addon !== undefined) return addon;
  addon = null;
  if (process.env.PM_TUNNEL_RECORDS === 'tls') return addon;
  try {
    const file = path.join(import.meta.dirname, '..', '..', 'native', 'build', 'tunnel-aead.node');
    addon = createRequire(import.meta.url)(file) as SealedAddon;
  } catch {
    addon = null;
  }
  return addon;
}

/** A record failed to open (forged, reordered or truncated by someone on the path) or is oversized. */
export class RecordError extends Error {}

/** Bytes of the record that holds `plaintextBytes`. */
export function recordBytes(plaintextBytes: number): number {
  return RECORD_HEADER_BYTES + plaintextBytes + TAG_BYTES;
}

/** One direction's sealing side: records numbered from 0. */
export class Sealer {
  private readonly native: SealedAddon;
  private readonly ctx: object;

  constructor(native: SealedAddon, key: Buffer, iv: Buffer) {
    this.native = native;
    this.ctx = native.create(key, iv, true);
  }

  /** Seals `pieces` (at most MAX_RECORD_PLAINTEXT bytes in all) into `out` at `offset`; returns the record's size. */
  seal(pieces: Buffer[], out: Buffer, offset = 0): number {
    return this.native.seal(this.ctx, pieces, out, offset);
  }
}

/**
 * One direction's opening side: takes the byte stream in chunks of any size and hands out each
 * record's plaintext, valid only during the call (a record that lies whole in a chunk is opened in
 * place, in the chunk; one split over reads is gathered in a buffer of its own first).
 */
export class Opener {
  private readonly native: SealedAddon;
  private readonly ctx: object;
  private readonly header = Buffer.alloc(RECORD_HEADER_BYTES);
  private headerHave = 0;
  private partial: Buffer | null = null;
  private partialHave = 0;

  constructor(native: SealedAddon, key: Buffer, iv: Buffer) {
    this.native = native;
    this.ctx = native.create(key, iv, false);
  }

  /** Feeds `chunk` (which it may overwrite); throws RecordError on a bad record. */
  push(chunk: Buffer, deliver: (plaintext: Buffer) => void): void {
    const end = chunk.length;
    let o = 0;
    while (o < end) {
      if (this.partial === null) {
        if (this.headerHave === 0 && end - o >= RECORD_HEADER_BYTES) {
          const body = checkedBody(chunk.readUInt32BE(o));
          const size = RECORD_HEADER_BYTES + body;
          if (end - o >= size) {
            deliver(this.open(chunk, o, o + size));
            o += size;
            continue;
          }
          this.partial = takeGatherBuffer(size);
          this.partialHave = chunk.copy(this.partial, 0, o, end);
          return;
        }
        const take = Math.min(RECORD_HEADER_BYTES - this.headerHave, end - o);
        chunk.copy(this.header, this.headerHave, o, o + take);
        this.headerHave += take;
        o += take;
        if (this.headerHave < RECORD_HEADER_BYTES) return;
        this.headerHave = 0;
        this.partial = takeGatherBuffer(RECORD_HEADER_BYTES + checkedBody(this.header.readUInt32BE(0)));
        this.partialHave = this.header.copy(this.partial, 0);
      }
      const record = this.partial;
      const take = Math.min(record.length - this.partialHave, end - o);
      chunk.copy(record, this.partialHave, o, o + take);
      this.partialHave += take;
      o += take;
      if (this.partialHave < record.length) return;
      this.partial = null;
      try {
        deliver(this.open(record, 0, record.length));
      } finally {
        releaseGatherBuffer(record);
      }
    }
  }

  /** Whether the stream stopped inside a record (an end of file there is a truncation). */
  get midRecord(): boolean {
    return this.partial !== null || this.headerHave > 0;
  }

  private open(buf: Buffer, start: number, end: number): Buffer {
    const n = this.native.open(this.ctx, buf, start, end);
    if (n < 0) throw new RecordError('tunnel record failed authentication');
    return buf.subarray(start + RECORD_HEADER_BYTES, start + RECORD_HEADER_BYTES + n);
  }
}

/** A view of `size` bytes on a pooled buffer of the largest record's size. */
function takeGatherBuffer(size: number): Buffer {
  return (gatherSpares.pop() ?? Buffer.allocUnsafeSlow(MAX_RECORD)).subarray(0, size);
}

function releaseGatherBuffer(view: Buffer): void {
  if (gatherSpares.length < MAX_GATHER_SPARES)
    gatherSpares.push(Buffer.from(view.buffer, view.byteOffset, MAX_RECORD));
}

function checkedBody(n: number): number {
  if (n < TAG_BYTES || n > MAX_RECORD_BODY) throw new RecordError(`tunnel record of ${n} bytes`);
  return n;
}
