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
const FLUSH_SQL = `
  WITH v AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[],
      $7::bigint[]) AS v(id, reqs, fails, up, down, agent_fails, auth_fails)
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

/**
 * Traffic counters per lease, kept in memory by the data path (never waiting on the database) and
 * written in one batched UPDATE every `flushMs`. When the database is unreachable the deltas stay in
 * memory and are added to the next flush, so nothing is lost unless the gateway process dies.
 */
export function createPgLeaseMeter(options: PgLeaseMeterOptions): PgLeaseMeter {
  const flushMs = Math.min(options.flushMs ?? 2000, 5000);
  const queryTimeoutMs = options.queryTimeoutMs ?? 10_000;
  const onError = options.onError ?? (() => {});
  let buffer = new Map<string, Counters>();
  let inFlight: Promise<void> = Promise.resolve();
  /** The batch being written, counted as pending until it is in the database. */
  let writing = new Map<string, Counters>();

  const countersOf = (leaseId: string): Counters => {
    let c = buffer.get(leaseId);
    if (!c) {
      c = { reqs: 0, fails: 0, agentFails: 0, authFails: 0, up: 0, down: 0 };
      buffer.set(leaseId, c);
    }
    return c;
  };

  function restore(batch: Map<string, Counters>): void {
    for (const [id, c] of batch) {
      const into = countersOf(id);
      into.reqs += c.reqs;
      into.fails += c.fails;
      into.agentFails += c.agentFails;
      into.authFails += c.authFails;
      into.up += c.up;
      into.down += c.down;
    }
  }

  async function write(batch: Map<string, Counters>): Promise<void> {
    const ids: string[] = [];
    const reqs: number[] = [];
    const fails: number[] = [];
    const agentFails: number[] = [];
    const authFails: number[] = [];
    const up: number[] = [];
    const down: number[] = [];
    for (const [id, c] of batch) {
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
        options.db.query(FLUSH_SQL, [ids, reqs, fails, up, down, agentFails, authFails]),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  function flush(): Promise<void> {
    // One flush at a time: the next one takes whatever accumulated meanwhile (and any restored batch).
    const run = inFlight.then(async () => {
      if (buffer.size === 0) return;
      const batch = buffer;
      buffer = new Map();
      writing = batch;
      try {
        await write(batch);
      } catch (e) {
        // A timed-out UPDATE might still commit later and then count twice; an outage is the likelier cause.
        restore(batch);
        throw e;
      } finally {
        writing = new Map();
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
    pendingLeases: () => new Set([...buffer.keys(), ...writing.keys()]).size,
    async close() {
      clearInterval(timer);
      await flush().catch(onError);
    },
  };
}
