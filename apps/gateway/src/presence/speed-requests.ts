/**
 * Speed checks the market API asks for (`GET /agents/{id}/speedcheck?request=true`). The API
 * inserts a `speed_checks` row (`requested`) naming the agent's node and notifies
 * `speedcheck_requested` with the node id; the node that holds the agent's tunnel claims the row
 * (`checking`), runs the presence monitor's speed test through the agent (which also keeps the
 * agent row's last speed) and writes `done` with bits per second, or `failed`. PostgreSQL is the
 * only channel, as for purchase probes.
 */
import { SPEED_CHECK_REQUESTED_CHANNEL } from '@pm/contracts';
import type { DbHandle } from '@pm/db';
import { type ClaimWorker, startClaimWorker } from './claim-worker.ts';
import type { PresenceMonitor } from './presence.ts';

export interface SpeedRequestWorkerOptions {
  db: DbHandle;
  nodeId: string;
  presence: Pick<PresenceMonitor, 'runSpeedTest'>;
  /** Requests older than this are left alone: the API reports them as failed. Default 60 s. */
  maxAgeMs?: number;
  /** Safety net for a missed notification: claim pending requests this often. Default 2 s. */
  sweepMs?: number;
  onError?: (err: unknown) => void;
}

export type SpeedRequestWorker = ClaimWorker;

const CLAIM_BATCH = 16;
const CLAIM = `
  UPDATE speed_checks SET status = 'checking', started_at = now()
  WHERE id IN (
    SELECT id FROM speed_checks
    WHERE node_id = $1 AND status = 'requested' AND requested_at > now() - make_interval(secs => $2)
    ORDER BY id LIMIT ${CLAIM_BATCH} FOR UPDATE SKIP LOCKED)
  RETURNING id::text AS id, agent_id`;

const FINISH = `
  UPDATE speed_checks SET status = $2, bps = $3, error = $4, done_at = now()
  WHERE id = $1::bigint AND status = 'checking'`;

/** Starts answering this node's speed-check requests. */
export function startSpeedRequestWorker(options: SpeedRequestWorkerOptions): SpeedRequestWorker {
  const { db, nodeId } = options;

  async function run(id: string, agentId: string): Promise<void> {
    let result: { ok: boolean; bps: number; error?: string | undefined };
    try {
      result = await options.presence.runSpeedTest(agentId);
    } catch (e) {
      result = { ok: false, bps: 0, error: String(e) };
    }
    await db.query(FINISH, [
      id,
      result.ok ? 'done' : 'failed',
      result.ok ? Math.round(result.bps) : 0,
      result.ok ? null : (result.error ?? 'speed test failed'),
    ]);
  }

  return startClaimWorker({
    db,
    nodeId,
    channel: SPEED_CHECK_REQUESTED_CHANNEL,
    claimSql: CLAIM,
    batch: CLAIM_BATCH,
    maxAgeS: (options.maxAgeMs ?? 60_000) / 1000,
    sweepMs: options.sweepMs ?? 2000,
    onError: options.onError ?? (() => {}),
    run,
  });
}
