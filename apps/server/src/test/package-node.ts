import type { DbHandle } from '@pm/db';

/** A package node's meter as a refund sees it, simulated: bytes it holds unflushed, and whether it answers. */
export interface SimulatedPackageNode {
  /** Traffic the node relayed for the package and has not written yet (the next flush adds it). */
  relay(packageId: string, bytes: number): void;
  /** The node stops answering flush requests for the package (alive, but late). */
  mute(packageId: string): void;
  /** Errors of the simulated flushes (a test asserts there were none). */
  errors: unknown[];
  stop(): Promise<void>;
}

/**
 * Stands in for the gateway's answer to a refund's flush request (NOTIFY `package_flush` with the
 * package id): adds the bytes the node held to the package's counters and stamps
 * `stats_flushed_at`, as the real meter does. The real gateway's answer is tested in apps/gateway.
 */
export async function simulatePackageNode(db: DbHandle): Promise<SimulatedPackageNode> {
  const held = new Map<string, number>();
  const muted = new Set<string>();
  const errors: unknown[] = [];
  async function flush(id: string): Promise<void> {
    const bytes = held.get(id) ?? 0;
    held.delete(id);
    await db.query(
      'UPDATE port_packages SET download = download + $2, stats_flushed_at = now() WHERE id = $1',
      [id, bytes],
    );
  }
  const stop = await db.listen('package_flush', (id) => {
    if (id === '' || muted.has(id)) return;
    flush(id).catch((e: unknown) => errors.push(e));
  });
  return {
    relay(packageId, bytes) {
      held.set(packageId, (held.get(packageId) ?? 0) + bytes);
    },
    mute(packageId) {
      muted.add(packageId);
    },
    errors,
    stop,
  };
}
