import { randomUUID } from 'node:crypto';
import type { DbHandle } from '@pm/db';
import type { LeaseMeter } from '../policy/types.ts';

export interface PgLeaseMeterOptions {
  db: DbHandle;
  /** Flush period; at most 5000 (the bound). Default 2000. */
  flushMs?: number;
  /** A flush that takes longer is treated as failed and retried. Default 10 s. */
  queryTimeoutMs?: number;
  onError?: (err: unknown) => void;
}

export interface PgLeaseMeter extends LeaseMeter {
  /** Writes the buffered counters now; on failure they stay buffered (and the promise rejects). */
  flush(): Promise<void>;
  /**
   * The next flush writes this lease's or package's row even without new counters, stamping its
   * `stats_flushed_at`: the answer to a request for exact counters (`package_flush`).
   */
  markForFlush(leaseId: string): void;
  /** Leases with counters not yet in the database (buffered or being written). */
  pendingLeases(): number;
  /** Stops the timer and makes a last flush attempt. */
  close(): Promise<void>;
}

interface Counters {
  reqs: number;
  fails: number;
  agentFails: number;
  authFails: number;
  up: number;
  down: number;
}

// One statement per flush, whatever the number of leases: arrays unnested into a join. The same
// statement adds the deltas to the lease's row for the current UTC hour (lease_traffic_hourly), so
// the hourly rows always sum to the totals; a delta lands in the hour it was flushed (<= 5 s late).
// The agent-caused failures (what the auto-refund reads) are kept by the hour only. Refused
// credentials (auth_fails) are apart from requests and failures. A row with no delta (asked for by
// `markForFlush`) only stamps stats_flushed_at and writes no hour.
// The flush's id ($8) goes into meter_flushes in the same statement: a retry of a flush that did
// commit finds its id there, claims nothing, and its counters join nothing (written once).
const FLUSH_SQL = `
  WITH claim AS (
    INSERT INTO meter_flushes (id) VALUES ($8::uuid) ON CONFLICT (id) DO NOTHING RETURNING id
  ), v AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[],
      $7::bigint[]) AS v(id, reqs, fails, up, down, agent_fails, auth_fails)
    WHERE EXISTS (SELECT 1 FROM claim)
  ), packages AS (
    -- Package ports meter under their package id, whatever its status now: bytes relayed before a
    -- suspension reached the data path count too. An active package at its volume is suspended
    -- here (package_over_volume), and the trigger's NOTIFY drops its ports (docs/gateway.md).
    UPDATE port_packages AS p SET
      requests = p.requests + v.reqs,
      errors = p.errors + v.fails,
      auth_fails = p.auth_fails + v.auth_fails,
      upload = p.upload + v.up,
      download = p.download + v.down,
      stats_flushed_at = now(),
      status = CASE WHEN p.status = 'active'
        AND package_over_volume(p.traffic_type, p.traffic_gb, p.upload + p.download + v.up + v.down)
        THEN 'suspend' ELSE p.status END,
      suspend_reason = CASE WHEN p.status = 'active'
        AND package_over_volume(p.traffic_type, p.traffic_gb, p.upload + p.download + v.up + v.down)
        THEN 'volume' ELSE p.suspend_reason END
    FROM v
    WHERE p.id = v.id
    RETURNING p.id
  ), package_hours AS (
    INSERT INTO package_traffic_hourly AS ph (package_id, hour, reqs, fails, auth_fails, in_bytes, out_bytes)
    SELECT v.id, date_trunc('hour', now(), 'UTC'), v.reqs, v.fails, v.auth_fails, v.up, v.down
    FROM v JOIN packages ON packages.id = v.id
    WHERE v.reqs + v.fails + v.auth_fails + v.up + v.down > 0
    ON CONFLICT (package_id, hour) DO UPDATE SET
      reqs = ph.reqs + excluded.reqs,
      fails = ph.fails + excluded.fails,
      auth_fails = ph.auth_fails + excluded.auth_fails,
      in_bytes = ph.in_bytes + excluded.in_bytes,
      out_bytes = ph.out_bytes + excluded.out_bytes
  ), totals AS (
    UPDATE leases AS l SET
      reqs = l.reqs + v.reqs,
      fails = l.fails + v.fails,
      auth_fails = l.auth_fails + v.auth_fails,
      in_bytes = l.in_bytes + v.up,
      out_bytes = l.out_bytes + v.down,
      stats_flushed_at = now()
    FROM v
    WHERE l.id = v.id
    RETURNING l.id
  )
  INSERT INTO lease_traffic_hourly AS h (lease_id, hour, reqs, fails, agent_fails, auth_fails, in_bytes, out_bytes)
  SELECT v.id, date_trunc('hour', now(), 'UTC'), v.reqs, v.fails, v.agent_fails, v.auth_fails, v.up, v.down
  FROM v JOIN totals ON totals.id = v.id
  WHERE v.reqs + v.fails + v.auth_fails + v.up + v.down > 0
  ON CONFLICT (lease_id, hour) DO UPDATE SET
    reqs = h.reqs + excluded.reqs,
    fails = h.fails + excluded.fails,
    agent_fails = h.agent_fails + excluded.agent_fails,
    auth_fails = h.auth_fails + excluded.auth_fails,
    in_bytes = h.in_bytes + excluded.in_bytes,
    out_bytes = h.out_bytes + excluded.out_bytes`;

/** Applied flush ids older than this are deleted (a node retries one flush for far less). */
const PRUNE_SQL = `
  DELETE FROM meter_flushes WHERE id IN (
    SELECT id FROM meter_flushes WHERE flushed_at < now() - interval '1 day' LIMIT 1000 FOR UPDATE SKIP LOCKED
  )`;
/** Prune once in this many flushes (an hour at the default period). */
const PRUNE_EVERY = 1800;

/** A batch being written or to be written again, with the id that makes its write happen once. */
interface Batch {
  id: string;
  counters: Map<string, Counters>;
}

/**
 * Traffic counters per lease, kept in memory by the data path (never waiting on the database) and
 * written in one batched UPDATE every `flushMs`. When a flush fails (the database unreachable, or
 * a timeout that may have committed after all), its batch is kept as it is, with its id, and sent
 * again before anything newer: the id makes the write happen exactly once (meter_flushes). Nothing
 * is lost unless the gateway process dies, and nothing is counted twice.
 */
export function createPgLeaseMeter(options: PgLeaseMeterOptions): PgLeaseMeter {
  const flushMs = Math.min(options.flushMs ?? 2000, 5000);
  const queryTimeoutMs = options.queryTimeoutMs ?? 10_000;
  const onError = options.onError ?? (() => {});
  let buffer = new Map<string, Counters>();
  let inFlight: Promise<void> = Promise.resolve();
  /** The batch being written, or the one that failed and goes again first; pending either way. */
  let unwritten: Batch | undefined;
  let flushes = 0;

  const countersOf = (leaseId: string): Counters => {
    let c = buffer.get(leaseId);
    if (!c) {
      c = { reqs: 0, fails: 0, agentFails: 0, authFails: 0, up: 0, down: 0 };
      buffer.set(leaseId, c);
    }
    return c;
  };

  async function write(batch: Batch): Promise<void> {
    const ids: string[] = [];
    const reqs: number[] = [];
    const fails: number[] = [];
    const agentFails: number[] = [];
    const authFails: number[] = [];
    const up: number[] = [];
    const down: number[] = [];
    for (const [id, c] of batch.counters) {
      ids.push(id);
      reqs.push(c.reqs);
      fails.push(c.fails);
      agentFails.push(c.agentFails);
      authFails.push(c.authFails);
      up.push(c.up);
      down.push(c.down);
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`meter flush timed out after ${queryTimeoutMs} ms`)),
        queryTimeoutMs,
      );
    });
    try {
      await Promise.race([
        options.db.query(FLUSH_SQL, [ids, reqs, fails, up, down, agentFails, authFails, batch.id]),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  function flush(): Promise<void> {
    // One flush at a time: a batch that failed goes again first, with its id, then what accumulated.
    const run = inFlight.then(async () => {
      if (!unwritten) {
        if (buffer.size === 0) return;
        unwritten = { id: randomUUID(), counters: buffer };
        buffer = new Map();
      }
      // Kept until written: a failure (or a timeout that commits later) leaves it to the next flush.
      await write(unwritten);
      unwritten = undefined;
      if (++flushes % PRUNE_EVERY === 0) await options.db.query(PRUNE_SQL).catch(onError);
      if (buffer.size > 0) {
        unwritten = { id: randomUUID(), counters: buffer };
        buffer = new Map();
        await write(unwritten);
        unwritten = undefined;
      }
    });
    inFlight = run.catch(() => {});
    return run;
  }

  const timer = setInterval(() => {
    flush().catch(onError);
  }, flushMs);
  timer.unref();

  return {
    countRequest(leaseId, result) {
      const c = countersOf(leaseId);
      c.reqs += 1;
      if (result !== 'ok') c.fails += 1;
      if (result === 'agent') c.agentFails += 1;
    },
    addBytes(leaseId, up, down) {
      const c = countersOf(leaseId);
      c.up += up;
      c.down += down;
    },
    countFailureAfterSuccess(leaseId) {
      const c = countersOf(leaseId);
      c.fails += 1;
      c.agentFails += 1;
    },
    countAuthFailure(leaseId) {
      countersOf(leaseId).authFails += 1;
    },
    markForFlush(leaseId) {
      countersOf(leaseId);
    },
    flush,
    pendingLeases: () => new Set([...buffer.keys(), ...(unwritten?.counters.keys() ?? [])]).size,
    async close() {
      clearInterval(timer);
      await flush().catch(onError);
    },
  };
}
