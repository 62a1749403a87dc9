/**
 * A traffic package's volume held on the relay path (docs/gateway.md, "Volume on the relay path").
 * The node keeps, per package and generation, the bytes it may still hand out; each connection's
 * stream holds a grant and spends it per chunk, both directions together, and asks for more when
 * a chunk overdraws it. Every byte a stream relays has been taken from the budget first, so what
 * the package's connections relay never passes the volume; the database's counters are the record.
 */
import type { MuxStream } from '@pm/tunnel';
import type { ByteBudget } from '../policy/types.ts';

/** What one connection takes from its package's budget at a time. */
export const GRANT_BYTES = 256 * 1024;

/** A package's bytes not yet handed to a connection. */
export class PackageBudget implements ByteBudget {
  /** Bytes not yet granted (may be negative after the volume was lowered). */
  left: number;

  constructor(leftBytes: number) {
    this.left = leftBytes;
  }

  private take(wanted: number): number {
    const got = Math.max(0, Math.min(wanted, this.left));
    this.left -= got;
    return got;
  }

  hasLeft(): boolean {
    return this.left > 0;
  }

  grant(st: MuxStream): void {
    st.allowance = this.take(GRANT_BYTES);
    st.budget = this;
  }

  /** Covers the overdraft (`-st.allowance`) and a fresh grant, as far as the budget goes. */
  refill(st: MuxStream): boolean {
    st.allowance += this.take(GRANT_BYTES - st.allowance);
    return st.allowance >= 0;
  }

  release(st: MuxStream): void {
    if (st.budget !== this) return;
    if (st.allowance > 0) this.left += st.allowance;
    st.allowance = 0;
    st.budget = null;
  }
}

interface Kept {
  budget: PackageBudget;
  generation: number;
  volumeBytes: number;
  seenAtMs: number;
}

/**
 * The budgets of this node's packages across reloads. A package's budget is made once per
 * generation from its counters at that load (volume − upload − download) and then kept: this node
 * is the only one relaying for the package, so its own count is ahead of the database's, which
 * lags by the meter's flush (a later load only lowers it, if the database knows of bytes this
 * node did not relay). A reactivation (new generation, counters reset) makes a fresh one; a
 * changed volume moves what is left by the difference. A package gone from the loads (blocked,
 * suspended) keeps its budget for `graceMs`, so coming back before its last bytes are flushed
 * cannot restore them.
 */
export class PackageBudgets {
  private readonly byId = new Map<string, Kept>();
  private readonly graceMs: number;

  constructor(graceMs = 60_000) {
    this.graceMs = graceMs;
  }

  /** The budget of a loaded package; undefined for an unlimited one (`volumeBytes` null). */
  budgetOf(
    id: string,
    row: { generation: number; volumeBytes: number | null; usedBytes: number },
    nowMs: number,
  ): PackageBudget | undefined {
    if (row.volumeBytes === null) {
      this.byId.delete(id);
      return undefined;
    }
    const kept = this.byId.get(id);
    if (kept && kept.generation === row.generation) {
      kept.budget.left += row.volumeBytes - kept.volumeBytes;
      // The database lags this node's count, so it only lowers it when bytes came from elsewhere.
      kept.budget.left = Math.min(kept.budget.left, row.volumeBytes - row.usedBytes);
      kept.volumeBytes = row.volumeBytes;
      kept.seenAtMs = nowMs;
      return kept.budget;
    }
    const budget = new PackageBudget(row.volumeBytes - row.usedBytes);
    this.byId.set(id, { budget, generation: row.generation, volumeBytes: row.volumeBytes, seenAtMs: nowMs });
    return budget;
  }

  /** Forgets the budgets of packages not loaded within the grace period. */
  prune(nowMs: number): void {
    for (const [id, kept] of this.byId) if (nowMs - kept.seenAtMs > this.graceMs) this.byId.delete(id);
  }
}
