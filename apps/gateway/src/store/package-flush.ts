import type { DbHandle } from '@pm/db';
import type { PgLeaseMeter } from '../metering/lease-meter.ts';
import type { PackagePorts } from './package-ports.ts';

/** How long a freeze holds at most when the server never clears its request (it died mid-decision). */
export const FREEZE_EXPIRY_MS = 30_000;

// The state of a request, by the database's clock: whether one is pending, whether this node has
// answered it, and how much of the freeze's expiry is left (counted from the request, so a stale
// request seen again after a reconnect freezes nothing). Only the package's own node answers:
// another node's stamp would claim counters it does not hold.
const REQUEST_STATE = `
  SELECT id, flush_requested_at IS NOT NULL AS pending,
         (stats_flushed_at IS NULL OR stats_flushed_at < flush_requested_at) AS unanswered,
         GREATEST(0, $3::int - EXTRACT(EPOCH FROM clock_timestamp() - flush_requested_at) * 1000)::int
           AS freeze_left_ms
  FROM port_packages
  WHERE node_id = $2 AND ($1::text IS NULL AND flush_requested_at IS NOT NULL OR id = $1)`;

interface RequestState {
  id: string;
  pending: boolean;
  unanswered: boolean | null;
  freeze_left_ms: number | null;
}

export interface PackageFlushOptions {
  db: DbHandle;
  nodeId: string;
  meter: Pick<PgLeaseMeter, 'markForFlush' | 'flush'>;
  /** The node's packages: their open bytes reported on request (the data path's `onFlushRequested`) and their freeze. */
  packages: Pick<PackagePorts, 'reportOpenBytes' | 'freeze' | 'unfreeze' | 'frozenIds'>;
  /** The freeze's safety expiry (default `FREEZE_EXPIRY_MS`). */
  freezeExpiryMs?: number;
  onError?: (err: unknown) => void;
}

/**
 * Answers a request for a package's exact counters (`NOTIFY package_flush`, payload the package
 * id, raised whenever the server sets or clears `flush_requested_at` around a refund decision).
 * A pending request on this node's package first freezes the package (`PackagePorts.freeze`: it
 * relays nothing more, so the decision's counters are final), then its open connections report
 * their bytes and the meter flushes at once, stamping `stats_flushed_at` even without new bytes;
 * the server waits for `stats_flushed_at >= flush_requested_at`. A cleared request (a refused
 * refund) unfreezes the package; a freeze nobody clears ends `freezeExpiryMs` after the request.
 * Answers run one at a time in the order of their notifications, each reading the request's
 * current state, so the last one decides. When the LISTEN connection (re)connects, the table is
 * read again: pending requests freeze (unanswered ones are answered), freezes whose request was
 * cleared meanwhile end. Resolves, once listening, to the function that stops it.
 */
export async function listenPackageFlush(options: PackageFlushOptions): Promise<() => Promise<void>> {
  const { db, nodeId, meter, packages } = options;
  const expiryMs = options.freezeExpiryMs ?? FREEZE_EXPIRY_MS;
  const onError = options.onError ?? (() => {});

  /** Applies the states read; flushes the pending ones (all, or only those not answered yet). */
  const apply = async (rows: RequestState[], flushAnswered: boolean) => {
    const pending = rows.filter((r) => r.pending);
    for (const r of rows) if (!r.pending) packages.unfreeze(r.id);
    // Frozen before anything is reported: no byte is relayed between the report and the decision.
    for (const r of pending)
      if ((r.freeze_left_ms ?? 0) > 0) packages.freeze(r.id, Date.now() + r.freeze_left_ms!);
    const asked = pending.filter((r) => flushAnswered || r.unanswered);
    for (const r of asked) packages.reportOpenBytes(r.id);
    for (const r of asked) meter.markForFlush(r.id);
    if (asked.length > 0) await meter.flush();
  };
  const answer = async (packageId: string) => {
    const rows = await db.query<RequestState>(REQUEST_STATE, [packageId, nodeId, expiryMs]);
    await apply(rows, true);
  };
  const catchUp = async () => {
    const rows = await db.query<RequestState>(REQUEST_STATE, [null, nodeId, expiryMs]);
    const stillPending = new Set(rows.map((r) => r.id));
    const cleared = packages.frozenIds().filter((id) => !stillPending.has(id));
    await apply(
      [...rows, ...cleared.map((id) => ({ id, pending: false, unanswered: null, freeze_left_ms: null }))],
      false,
    );
  };
  let chain: Promise<void> = Promise.resolve();
  return db.listen('package_flush', (packageId) => {
    const run = chain.then(() => (packageId ? answer(packageId) : catchUp()));
    chain = run.catch(onError);
  });
}
