import type { DbHandle } from '@pm/db';
import type { AgentDialer } from '../policy/types.ts';
import {
  downloadThroughAgent,
  type HttpTarget,
  type ProbeResult,
  parseHttpTarget,
  probeThroughAgent,
  type SpeedResult,
} from './http-probe.ts';

export interface PresenceMonitorOptions {
  db: DbHandle;
  nodeId: string;
  dialer: AgentDialer;
  /** Agents with a live tunnel on this node (the gateway handle's `agentsOnline`). */
  agentsOnline: () => string[];
  /** `http://host:port/path` each probe requests through the agent. */
  probeUrl: string;
  /** `http://host:port/path` the speed test downloads through the agent. */
  speedUrl: string;
  /** Default 60 s. 0 disables periodic probes. */
  probeIntervalMs?: number;
  probeTimeoutMs?: number;
  /** Probes running at once. Default 16. */
  probeConcurrency?: number;
  /**
   * Probes started a second at most (default `PROBE_RATE_PER_S`): a round is spread over
   * agents / rate seconds, so a big fleet is probed less often (30,000 agents: every 20 minutes)
   * instead of in a burst every minute; the next round starts at the first tick after it ends.
   */
  probeRatePerS?: number;
  /** Period of the activity refresh. Default 60 s. */
  activityIntervalMs?: number;
  speedTimeoutMs?: number;
  /** Body bytes a speed test reads at most. Default 5 MB. */
  speedMaxBytes?: number;
  onError?: (err: unknown) => void;
}

export interface PresenceMonitor {
  /** Probes every online agent of this node once and records the results. */
  probeAll(): Promise<Map<string, ProbeResult>>;
  /** Recomputes `actv` and `probe_actv` of this node's agents from the last 24 hours. */
  refreshActivity(): Promise<void>;
  /** Speed test through an agent; stores `speed_bps`, `speed_checked_at`, `speed_status`. */
  runSpeedTest(agentId: string): Promise<SpeedResult>;
  close(): Promise<void>;
}

const DAY_S = 86_400;

/**
 * The presence probes' pace per node: 25 a second, one a minute for up to 1,500 agents. A probe is
 * an HTTP request through a tunnel (a stream opened, six TLS records, closed) and a row of
 * `agent_probes`; it costs the node about 450 µs of CPU (the fleet bench at 5,000 agents: 1.7 % of a
 * core idle at 10 a second, 6 % at 100). At one a minute for every agent, 30,000 agents were 500 a
 * second, a fifth of a core and 43 million rows a day; now every 20 minutes, 72 a day, which
 * measure `probe_actv` (a share of the day's probes) as well.
 */
export const PROBE_RATE_PER_S = 25;

/**
 * Activity (rules §3 `actv`): the online share of the last 24 hours, or of the time since the agent was
 * first seen when that is shorter (so a new agent is not penalised for hours before it existed; at
 * least one minute). Probe activity (`probe_actv`): share of the last 24 hours' probes that succeeded;
 * unchanged while there were none. Overlapping intervals are capped at 1.
 */
const REFRESH_ACTIVITY = `
  WITH w AS (SELECT now() AS t, now() - interval '24 hours' AS since),
  pres AS (
    SELECT p.agent_id,
           sum(extract(epoch FROM LEAST(COALESCE(p.ended_at, w.t), w.t) - GREATEST(p.started_at, w.since))) AS secs
    FROM agent_presence p, w
    WHERE COALESCE(p.ended_at, w.t) > w.since AND p.started_at < w.t
    GROUP BY p.agent_id),
  probes AS (
    SELECT pr.agent_id, avg(CASE WHEN pr.ok THEN 1.0 ELSE 0.0 END) AS frac
    FROM agent_probes pr, w WHERE pr.at > w.since GROUP BY pr.agent_id),
  s AS (
    SELECT a.id,
      CASE WHEN a.first_seen IS NULL THEN 0
           ELSE LEAST(1, COALESCE(pres.secs, 0) /
                GREATEST(60, LEAST(${DAY_S}, extract(epoch FROM (SELECT t FROM w) - a.first_seen)))) END AS actv,
      COALESCE(probes.frac, a.probe_actv) AS probe_actv
    FROM agents a LEFT JOIN pres ON pres.agent_id = a.id LEFT JOIN probes ON probes.agent_id = a.id
    WHERE a.node_id = $1)
  UPDATE agents a SET actv = s.actv, probe_actv = s.probe_actv FROM s WHERE a.id = s.id`;

/** History older than this is deleted by the activity refresh. */
const PRUNE = [
  `DELETE FROM agent_probes WHERE at < now() - interval '48 hours'
     AND agent_id IN (SELECT id FROM agents WHERE node_id = $1)`,
  `DELETE FROM agent_presence WHERE node_id = $1 AND ended_at < now() - interval '48 hours'`,
];

async function mapLimit<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  });
  await Promise.all(workers);
  return out;
}

/**
 * Presence bookkeeping of one node: periodic probes through its online agents (results in
 * `agent_probes`), the activity figures the shop shows, and speed tests on request.
 */
export function createPresenceMonitor(options: PresenceMonitorOptions): PresenceMonitor {
  const { db, nodeId, dialer } = options;
  const onError = options.onError ?? (() => {});
  const probeTarget: HttpTarget = parseHttpTarget(options.probeUrl);
  const speedTarget: HttpTarget = parseHttpTarget(options.speedUrl);
  const probeTimeoutMs = options.probeTimeoutMs ?? 10_000;
  let closed = false;
  let probing: Promise<unknown> = Promise.resolve();
  const speedTests = new Map<string, Promise<SpeedResult>>();

  async function probeAll(): Promise<Map<string, ProbeResult>> {
    const ids = options.agentsOnline();
    // The i-th probe starts no earlier than i / rate seconds into the round.
    const gapMs = 1000 / (options.probeRatePerS ?? PROBE_RATE_PER_S);
    const t0 = performance.now();
    const results = await mapLimit(ids, options.probeConcurrency ?? 16, async (id, i) => {
      const waitMs = t0 + i * gapMs - performance.now();
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
      return probeThroughAgent(dialer, id, probeTarget, probeTimeoutMs);
    });
    if (ids.length > 0) {
      await db.query(
        `INSERT INTO agent_probes (agent_id, ok, latency_ms, error)
         SELECT * FROM unnest($1::text[], $2::boolean[], $3::int[], $4::text[])`,
        [ids, results.map((r) => r.ok), results.map((r) => r.latencyMs), results.map((r) => r.error ?? null)],
      );
    }
    return new Map(ids.map((id, i) => [id, results[i]!]));
  }

  async function refreshActivity(): Promise<void> {
    await db.query(REFRESH_ACTIVITY, [nodeId]);
    for (const q of PRUNE) await db.query(q, [nodeId]);
  }

  async function speedTest(agentId: string): Promise<SpeedResult> {
    await db.query(`UPDATE agents SET speed_status = 'checking' WHERE id = $1`, [agentId]);
    const result = options.agentsOnline().includes(agentId)
      ? await downloadThroughAgent(dialer, agentId, speedTarget, {
          timeoutMs: options.speedTimeoutMs ?? 30_000,
          maxBytes: options.speedMaxBytes ?? 5_000_000,
        })
      : { ok: false, bps: 0, bytes: 0, error: 'agent offline' };
    await db.query(
      'UPDATE agents SET speed_bps = $2, speed_checked_at = now(), speed_status = $3 WHERE id = $1',
      [agentId, result.bps, result.ok ? 'ok' : 'failed'],
    );
    return result;
  }

  // A round that outlasts the period (tens of thousands of agents, slow ones) is not joined by a
  // second one: the next starts at the first tick after it ended.
  let roundRunning = false;
  const probeTimer =
    (options.probeIntervalMs ?? 60_000) > 0
      ? setInterval(() => {
          if (closed || roundRunning) return;
          roundRunning = true;
          probing = probeAll()
            .catch(onError)
            .finally(() => {
              roundRunning = false;
            });
        }, options.probeIntervalMs ?? 60_000)
      : undefined;
  probeTimer?.unref();
  const activityTimer = setInterval(() => {
    if (!closed) refreshActivity().catch(onError);
  }, options.activityIntervalMs ?? 60_000);
  activityTimer.unref();

  return {
    probeAll,
    refreshActivity,
    runSpeedTest(agentId) {
      // One test per agent at a time; a second request joins the running one.
      const running = speedTests.get(agentId);
      if (running) return running;
      const run = speedTest(agentId).finally(() => speedTests.delete(agentId));
      speedTests.set(agentId, run);
      return run;
    },
    async close() {
      closed = true;
      if (probeTimer) clearInterval(probeTimer);
      clearInterval(activityTimer);
      await probing;
      await Promise.allSettled([...speedTests.values()]);
    },
  };
}
