/**
 * The claim/answer loop shared by the request workers (purchase probes, speed checks): the API
 * inserts a row naming this node and notifies a channel with the node id; the worker claims its
 * pending rows in batches (`FOR UPDATE SKIP LOCKED`, so two nodes never take the same row) and runs
 * each one. A sweep on a timer and a `''` notification (the LISTEN connection reconnected) catch
 * what a missed notification would leave behind.
 */
import type { DbHandle } from '@pm/db';

export interface ClaimWorkerOptions {
  db: DbHandle;
  nodeId: string;
  /** The channel the API notifies with the node id. */
  channel: string;
  /**
   * Claims up to `batch` pending rows: `$1` the node id, `$2` the maximum age in seconds;
   * returns `id` and `agent_id`.
   */
  claimSql: string;
  /** The claim's LIMIT: a full batch claims again at once. */
  batch: number;
  maxAgeS: number;
  sweepMs: number;
  onError: (err: unknown) => void;
  /** Answers one claimed row. */
  run: (id: string, agentId: string) => Promise<void>;
}

export interface ClaimWorker {
  /** Resolves once the worker listens for requests. */
  ready: Promise<void>;
  /** Stops listening and waits for the rows in flight. */
  close(): Promise<void>;
}

/** Starts claiming and answering this node's rows. */
export function startClaimWorker(options: ClaimWorkerOptions): ClaimWorker {
  const { db, nodeId, onError } = options;
  const running = new Set<Promise<void>>();
  let closed = false;
  let claiming = false;
  let again = false;

  async function claimAll(): Promise<void> {
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    try {
      do {
        again = false;
        const rows = await db.query<{ id: string; agent_id: string }>(options.claimSql, [
          nodeId,
          options.maxAgeS,
        ]);
        for (const row of rows) {
          const p = options
            .run(row.id, row.agent_id)
            .catch(onError)
            .finally(() => running.delete(p));
          running.add(p);
        }
        if (rows.length === options.batch) again = true;
      } while (again && !closed);
    } catch (e) {
      onError(e);
    } finally {
      claiming = false;
    }
  }

  const kick = () => {
    if (!closed) void claimAll();
  };
  let unlisten: (() => Promise<void>) | undefined;
  const ready = db
    .listen(options.channel, (payload) => {
      // '' follows a reconnect of the LISTEN connection: something may have been missed.
      if (payload === nodeId || payload === '') kick();
    })
    .then((off) => {
      unlisten = off;
      kick();
    });
  const sweep = setInterval(kick, options.sweepMs);
  sweep.unref();

  return {
    ready,
    async close() {
      closed = true;
      clearInterval(sweep);
      await ready.catch(() => {});
      await unlisten?.();
      await Promise.allSettled([...running]);
    },
  };
}
