import type { DbHandle } from '@pm/db';
import type { PgLeaseMeter } from '../metering/lease-meter.ts';

// Only the package's own node answers: another node's stamp would claim counters it does not hold.
const IS_OURS = 'SELECT 1 FROM port_packages WHERE id = $1 AND node_id = $2';
// After the LISTEN connection (re)connects: the requests of this node still unanswered.
const UNANSWERED = `
  SELECT id FROM port_packages
  WHERE node_id = $1 AND flush_requested_at IS NOT NULL
    AND (stats_flushed_at IS NULL OR stats_flushed_at < flush_requested_at)`;

export interface PackageFlushOptions {
  db: DbHandle;
  nodeId: string;
  meter: Pick<PgLeaseMeter, 'markForFlush' | 'flush'>;
  /** Reports the package's open connections' bytes to the meter (the data path's `onFlushRequested`). */
  reportOpenBytes(packageId: string): void;
  onError?: (err: unknown) => void;
}

/**
 * Answers a request for a package's exact counters (`NOTIFY package_flush`, payload the package
 * id, raised when the server sets `flush_requested_at` before a refund decision): when the package
 * is this node's, its open connections report their bytes, and the meter flushes at once, stamping
 * the package's `stats_flushed_at` even without new bytes. The server waits for
 * `stats_flushed_at >= flush_requested_at`. When the LISTEN connection (re)connects, requests it may
 * have missed are answered from the table. Resolves, once listening, to the function that stops it.
 */
export async function listenPackageFlush(options: PackageFlushOptions): Promise<() => Promise<void>> {
  const { db, nodeId, meter } = options;
  const onError = options.onError ?? (() => {});
  const answer = async (packageId: string) => {
    const rows = await db.query(IS_OURS, [packageId, nodeId]);
    if (rows.length === 0) return;
    options.reportOpenBytes(packageId);
    meter.markForFlush(packageId);
    await meter.flush();
  };
  const catchUp = async () => {
    const rows = await db.query<{ id: string }>(UNANSWERED, [nodeId]);
    for (const { id } of rows) options.reportOpenBytes(id);
    for (const { id } of rows) meter.markForFlush(id);
    if (rows.length > 0) await meter.flush();
  };
  return db.listen('package_flush', (packageId) => {
    (packageId ? answer(packageId) : catchUp()).catch(onError);
  });
}
