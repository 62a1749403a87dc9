/** A slab of a pool: filled front to back; `holds` counts the pieces of it not yet done with. */
export interface Slab {
  readonly buf: Buffer;
  used: number;
  holds: number;
  /** Drops one hold (a write's callback: pre-bound, so a write costs no closure). */
  readonly release: () => void;
}

/**
 * Staging slabs for the tunnels' frame headers and small payloads, shared by every tunnel of the
 * process. A full slab that nobody holds is
 * used again from its start; one that a write still holds is left to it and comes back to the pool
 * when that write is done. Measured (docs/benchmarks.md): a fresh slab per few hundred KiB relayed
 * drove V8's external-memory mark-compacts; reusing them took 6-11 % off the CPU per GB in bulk.
 */
export class SlabPool {
  readonly size: number;
  current: Slab;
  private readonly spare: Slab[] = [];
  /** Released slabs kept for reuse; more are left to the garbage collector. */
  private readonly maxSpare: number;

  constructor(size: number, maxSpare = 4) {
    this.size = size;
    this.maxSpare = maxSpare;
    this.current = this.make();
  }

  /** The slab to put `need` bytes in (at most `size`): the current one, or a free one if it is full. */
  room(need: number): Slab {
    if (this.current.used + need > this.size) this.next();
    return this.current;
  }

  /** Moves on from the current slab (to its own start if nobody holds it). */
  next(): void {
    if (this.current.holds === 0) this.current.used = 0;
    else this.current = this.spare.pop() ?? this.make();
  }

  private make(): Slab {
    const slab: Slab = {
      buf: Buffer.allocUnsafe(this.size),
      used: 0,
      holds: 0,
      release: () => {
        if (--slab.holds > 0 || slab === this.current) return;
        slab.used = 0;
        if (this.spare.length < this.maxSpare) this.spare.push(slab);
      },
    };
    return slab;
  }
}
