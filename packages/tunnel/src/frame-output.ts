import { FrameWriter } from './frame-writer.ts';
import {
  AFTER_IO,
  AFTER_NEXT_POLL,
  type FlushAt,
  SOON,
  SOON_BYTES,
  SOON_STREAMS,
  TUNNEL_DROP_WATER,
  TUNNEL_HIGH_WATER,
  type TunnelTransport,
} from './mux-options.ts';
import type { RecordBudget } from './record-budget.ts';

/** What a tunnel's output needs from its multiplexer. */
export interface FrameOutputOwner {
  readonly awaitLocalFin: boolean;
  streamCount(): number;
  isClosed(): boolean;
  /** The queue fell back under the high-water mark within a flush (no 'drain' will come). */
  onWritable(): void;
  /** The queue passed the drop mark: the peer does not read. */
  onDrop(err: Error): void;
}

/** The scheduled flush: one function for every tunnel (no closure per tunnel). */
function flushOutput(out: FrameOutput): void {
  out.flush();
}

/** An immediate queued from an immediate runs in the next iteration, after its poll (which does not block). */
function flushAfterNextPoll(out: FrameOutput): void {
  setImmediate(flushOutput, out);
}

/**
 * A tunnel's outgoing frames: queued per loop iteration and written in one call (see `FlushAt` for
 * when), watched against the high-water and drop marks, and counted against the record budget.
 */
export class FrameOutput {
  /** Past the high-water mark: the streams' sources pause until the socket drains. */
  blocked = false;
  private readonly socket: TunnelTransport;
  private readonly owner: FrameOutputOwner;
  private readonly records: RecordBudget;
  private readonly writer = new FrameWriter();
  private scheduled = false;
  private dropping = false;

  constructor(socket: TunnelTransport, owner: FrameOutputOwner, records: RecordBudget) {
    this.socket = socket;
    this.owner = owner;
    this.records = records;
  }

  /** Queues a frame; `localData`: DATA read from a local socket (see `MuxOptions.awaitLocalFin`). */
  write(type: number, streamId: number, payload: Buffer, localData = false): void {
    this.writer.append(type, streamId, payload);
    const queued = this.socket.writableLength;
    if (queued + this.writer.bytes > TUNNEL_HIGH_WATER) {
      this.blocked = true;
      if (queued + this.writer.bytes > TUNNEL_DROP_WATER && !this.dropping) {
        // On the next tick, not under the caller.
        this.dropping = true;
        process.nextTick(() => this.owner.onDrop(new Error('tunnel: the peer does not read its queue')));
      }
    }
    const soon = queued === 0 && this.writer.bytes < SOON_BYTES && this.owner.streamCount() <= SOON_STREAMS;
    this.schedule(localData && this.owner.awaitLocalFin ? AFTER_NEXT_POLL : soon ? SOON : AFTER_IO);
  }

  /** Writes the queued frames at the moment `when` names (see `FlushAt`). */
  schedule(when: FlushAt = AFTER_IO): void {
    if (this.scheduled) return;
    this.scheduled = true;
    if (when === SOON) process.nextTick(flushOutput, this);
    else if (when === AFTER_IO) setImmediate(flushOutput, this);
    else setImmediate(flushAfterNextPoll, this);
  }

  /** Drops everything queued (the tunnel is gone). */
  clear(): void {
    this.writer.clear();
  }

  /** Writes what is queued now. */
  flush(): void {
    this.scheduled = false;
    if (this.owner.isClosed()) return;
    const { pieces, done } = this.writer.take();
    if (!pieces.length) return;
    const s = this.socket;
    // One write, or one corked writev; `done` rides with the last piece (a stream's callbacks
    // come in order) and frees the staging slab.
    const last = pieces.length - 1;
    let bytes = pieces[last].length;
    if (last > 0) s.cork();
    for (let i = 0; i < last; i++) {
      bytes += pieces[i].length;
      s.write(pieces[i]);
    }
    s.write(pieces[last], done);
    if (last > 0) s.uncork();
    this.records.wrote(bytes);
    // Written at once: no 'drain' will come, so resume the streams paused meanwhile here.
    if (this.blocked && s.writableLength <= TUNNEL_HIGH_WATER) this.owner.onWritable();
  }
}
