import { EventEmitter } from 'node:events';
import type { RawSocket } from './raw-tcp.ts';
import {
  MAX_RECORD_PLAINTEXT,
  Opener,
  RecordError,
  recordBytes,
  type SealedAddon,
  Sealer,
} from './sealed-records.ts';
import { SlabPool } from './slab-pool.ts';

/** Keys and IVs of both directions, as the handshake derived them. */
export interface SealedKeys {
  sendKey: Buffer;
  sendIv: Buffer;
  recvKey: Buffer;
  recvIv: Buffer;
}

/**
 * The tunnel's transport once the TLS handshake has handed over to sealed records: a write (or a
 * corked batch of them) is sealed into records of up to 16 KiB that leave in one system call; reads
 * are opened and handed on; both straight on the TCP handle. Offers what the mux uses of a socket.
 */
export class SealedSocket extends EventEmitter {
  private readonly raw: RawSocket;
  private readonly sealer: Sealer;
  private readonly opener: Opener;
  private corked = 0;
  private batch: Buffer[] = [];
  private batchBytes = 0;
  private batchCallbacks: (() => void)[] = [];
  /** The peer may still be reading through TLS until its first record comes: writes wait till then. */
  private heldUntilHeard: boolean;
  private held: { pieces: Buffer[]; cb: () => void }[] = [];

  /** `holdWrites`: the peer reads through TLS until our first record reaches it (see `sealed-handshake.ts`). */
  constructor(raw: RawSocket, native: SealedAddon, keys: SealedKeys, holdWrites: boolean) {
    super();
    this.raw = raw;
    this.sealer = new Sealer(native, keys.sendKey, keys.sendIv);
    this.opener = new Opener(native, keys.recvKey, keys.recvIv);
    this.heldUntilHeard = holdWrites;
    raw.on('drain', () => this.emit('drain'));
    raw.on('error', (err) => this.emit('error', err));
    raw.on('end', () => this.emit('end'));
    raw.on('close', () => this.emit('close'));
  }

  get writableLength(): number {
    return this.raw.writableLength + this.batchBytes;
  }

  get remoteAddress(): string | undefined {
    return this.raw.remoteAddress;
  }

  get destroyed(): boolean {
    return this.raw.destroyed;
  }

  /** Hands each record's plaintext to `onChunk` (valid only during the call). */
  readInto(onChunk: (chunk: Buffer) => void): void {
    const deliver = (plain: Buffer) => {
      if (this.heldUntilHeard) this.releaseHeld();
      if (plain.length && !this.raw.destroyed) onChunk(plain);
    };
    this.raw.readInto((chunk) => {
      try {
        this.opener.push(chunk, deliver);
      } catch (err) {
        if (!(err instanceof RecordError)) throw err;
        this.raw.destroy();
        this.emit('error', err);
      }
    });
  }

  write(data: Buffer, cb?: () => void): boolean {
    if (this.raw.destroyed) return false;
    this.batch.push(data);
    this.batchBytes += data.length;
    if (cb) this.batchCallbacks.push(cb);
    if (this.corked === 0) this.sealBatch();
    return this.writableLength < HIGH_WATER;
  }

  cork(): void {
    this.corked++;
  }

  uncork(): void {
    if (this.corked > 0 && --this.corked === 0 && this.batch.length) this.sealBatch();
  }

  setNoDelay(on = true): this {
    this.raw.setNoDelay(on);
    return this;
  }

  destroy(): this {
    this.raw.destroy();
    return this;
  }

  private sealBatch(): void {
    const pieces = this.batch;
    const callbacks = this.batchCallbacks;
    this.batch = [];
    this.batchBytes = 0;
    this.batchCallbacks = [];
    const cb =
      callbacks.length === 0 ? noop : callbacks.length === 1 ? callbacks[0] : () => callAll(callbacks);
    if (this.heldUntilHeard) this.held.push({ pieces, cb });
    else this.sealAndWrite(pieces, cb);
  }

  private releaseHeld(): void {
    this.heldUntilHeard = false;
    const held = this.held;
    this.held = [];
    for (const h of held) this.sealAndWrite(h.pieces, h.cb);
  }

  /** Seals `pieces` into as many records as their size needs, writes them at once; `cb` once written. */
  private sealAndWrite(pieces: Buffer[], cb: () => void): void {
    if (this.raw.destroyed) {
      cb();
      return;
    }
    let total = 0;
    for (const p of pieces) total += p.length;
    const records = Math.max(1, Math.ceil(total / MAX_RECORD_PLAINTEXT));
    const size = total + records * recordBytes(0);
    // Small output in Node's pooled small buffers, larger in the process's output slabs.
    const slab = size > SMALL_OUTPUT && size <= OUTPUT_SLAB_BYTES ? outputSlabs.room(size) : null;
    const out = slab ? slab.buf : Buffer.allocUnsafe(size);
    const start = slab ? slab.used : 0;
    let at = start;
    if (records === 1) {
      at += this.sealer.seal(pieces, out, at);
    } else {
      // Cut the pieces at the record boundaries.
      let record: Buffer[] = [];
      let room = MAX_RECORD_PLAINTEXT;
      for (let p of pieces) {
        while (p.length >= room) {
          record.push(p.subarray(0, room));
          at += this.sealer.seal(record, out, at);
          p = p.subarray(room);
          record = [];
          room = MAX_RECORD_PLAINTEXT;
        }
        if (p.length) record.push(p);
        room -= p.length;
      }
      if (record.length) at += this.sealer.seal(record, out, at);
    }
    if (!slab) {
      this.raw.write(out.subarray(0, at), cb);
      return;
    }
    slab.used = at;
    slab.holds++;
    this.raw.write(out.subarray(start, at), () => {
      slab.release();
      cb();
    });
  }
}

/** `write` answers false from here on, as a net.Socket's default does. */
const HIGH_WATER = 64 * 1024;
/** Output of a write larger than this goes into the output slabs instead of Node's small-buffer pool. */
const SMALL_OUTPUT = 4096;
/**
 * Sealed output of the process's tunnels, reused like the frame staging slabs (`slab-pool.ts`): a
 * fresh buffer per large write drives V8's external-memory collections in bulk.
 */
const OUTPUT_SLAB_BYTES = 1024 * 1024;
const outputSlabs = new SlabPool(OUTPUT_SLAB_BYTES, 8);

function noop(): void {}

function callAll(callbacks: (() => void)[]): void {
  for (const cb of callbacks) cb();
}
