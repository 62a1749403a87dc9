/**
 * A package's volume held on the relay path (docs/gateway.md, "Volume on the relay path").
 * The node keeps, per package and generation, the bytes it may still hand out; each connection's
 * stream holds a grant and spends it per chunk, both directions together, and asks for more when
 * a chunk overdraws it. Every byte a stream relays has been taken from the budget first, so what
 * the package's connections relay never passes the volume; the database's counters are the record.
 * The unlimited port has an endless budget, so it can be frozen as well: a frozen budget (a refund
 * being decided) grants nothing and has withdrawn its streams' grants, so the package relays
 * nothing and the counters the decision reads are final.
 */
import type { MuxStream } from '@pm/tunnel';
import type { ByteBudget } from '../policy/types.ts';

/** What one connection takes from its package's budget at a time. */
export const GRANT_BYTES = 256 * 1024;

/** A package's bytes not yet handed to a connection. */
export class PackageBudget implements ByteBudget {
  /** Bytes not yet granted (may be negative after the volume was lowered; Infinity: unlimited). */
  left: number;
  /** Until when (ms since epoch, `Date.now`) nothing is granted; 0: not frozen. */
  private frozenUntilMs = 0;
  /** Streams holding a grant, so a freeze can withdraw them. */
  private readonly holders = new Set<MuxStream>();

  constructor(leftBytes: number) {
    this.left = leftBytes;
  }

  private take(wanted: number): number {
    if (this.isFrozen()) return 0;
    const got = Math.max(0, Math.min(wanted, this.left));
    this.left -= got;
    return got;
  }

  /** Whether a freeze holds now (it ends by itself at its expiry). */
  isFrozen(): boolean {
    return this.frozenUntilMs !== 0 && Date.now() < this.frozenUntilMs;
  }

  /**
   * Grants nothing until `untilMs` (or `unfreeze`) and takes back every open stream's unspent
   * grant: each open connection is cut at its next chunk, new ones are refused.
   */
  freeze(untilMs: number): void {
    this.frozenUntilMs = Math.max(this.frozenUntilMs, untilMs);
    for (const st of this.holders) {
      if (st.allowance > 0) this.left += st.allowance;
      st.allowance = 0;
    }
  }

  unfreeze(): void {
    this.frozenUntilMs = 0;
  }

  hasLeft(): boolean {
    return this.left > 0 && !this.isFrozen();
  }

  grant(st: MuxStream): void {
    st.allowance = this.take(GRANT_BYTES);
    st.budget = this;
    this.holders.add(st);
  }

  /** Covers the overdraft (`-st.allowance`) and a fresh grant, as far as the budget goes. */
  refill(st: MuxStream): boolean {
    st.allowance += this.take(GRANT_BYTES - st.allowance);
    return st.allowance >= 0;
  }

  release(st: MuxStream): void {
    if (st.budget !== this) return;
    this.holders.delete(st);
    if (st.allowance > 0) this.left += st.allowance;
    st.allowance = 0;
    st.budget = null;
  }
}

interface Kept {
  budget: PackageBudget;
  generation: number;
  /** Infinity for the unlimited port. */
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
 * cannot restore them. A freeze is kept by package id, so a budget made after it (the package
 * loaded later, a new generation) is frozen too.
 */
export class PackageBudgets {
  private readonly byId = new Map<string, Kept>();
  /** Freezes by package id: until when (`Date.now` ms). */
  private readonly frozen = new Map<string, number>();
  private readonly graceMs: number;

  constructor(graceMs = 60_000) {
    this.graceMs = graceMs;
  }

  /** The budget of a loaded package (endless for the unlimited port, `volumeBytes` null). */
  budgetOf(
    id: string,
    row: { generation: number; volumeBytes: number | null; usedBytes: number },
    nowMs: number,
  ): PackageBudget {
    const volumeBytes = row.volumeBytes ?? Number.POSITIVE_INFINITY;
    const kept = this.byId.get(id);
    // Same generation and the same kind of volume (limited or not): the node's own count is kept.
    if (
      kept &&
      kept.generation === row.generation &&
      Number.isFinite(kept.volumeBytes) === Number.isFinite(volumeBytes)
    ) {
      if (Number.isFinite(volumeBytes)) {
        kept.budget.left += volumeBytes - kept.volumeBytes;
        // The database lags this node's count, so it only lowers it when bytes came from elsewhere.
        kept.budget.left = Math.min(kept.budget.left, volumeBytes - row.usedBytes);
      }
      kept.volumeBytes = volumeBytes;
      kept.seenAtMs = nowMs;
      return kept.budget;
    }
    const budget = new PackageBudget(volumeBytes - row.usedBytes);
    const until = this.frozen.get(id);
    if (until !== undefined) budget.freeze(until);
    this.byId.set(id, { budget, generation: row.generation, volumeBytes, seenAtMs: nowMs });
    return budget;
  }

  /** Freezes a package's budget until `untilMs` (`PackageBudget.freeze`), loaded or not yet. */
  freeze(id: string, untilMs: number): void {
    this.frozen.set(id, Math.max(this.frozen.get(id) ?? 0, untilMs));
    this.byId.get(id)?.budget.freeze(untilMs);
  }

  /** Ends a package's freeze. */
  unfreeze(id: string): void {
    this.frozen.delete(id);
    this.byId.get(id)?.budget.unfreeze();
  }

  /** The packages frozen now. */
  frozenIds(): string[] {
    const t = Date.now();
    return [...this.frozen].filter(([, until]) => until > t).map(([id]) => id);
  }

  /** Forgets the budgets of packages not loaded within the grace period, and ended freezes. */
  prune(nowMs: number): void {
    for (const [id, kept] of this.byId) if (nowMs - kept.seenAtMs > this.graceMs) this.byId.delete(id);
    const t = Date.now();
    for (const [id, until] of this.frozen) if (until <= t) this.frozen.delete(id);
  }
}
