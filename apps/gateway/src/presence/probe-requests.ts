/**
 * Probes the market API asks for before it sells an agent (`POST /leases` with `probe`). The API
 * inserts a `probe_requests` row naming the agent's node and notifies `probe_requested` with the
 * node id; the node that holds the agent's tunnel claims the row, requests an IP-echo URL through
 * the agent, keeps the agent row true to the exit it saw (address, location, host name), and writes
 * the result, notifying `probe_done` with the row's id. PostgreSQL is the only channel between them.
 */
import { promises as dns } from 'node:dns';
import { PROBE_DONE_CHANNEL, PROBE_REQUESTED_CHANNEL, type TProbeObservation } from '@pm/contracts';
import type { DbHandle } from '@pm/db';
import { type GeoLookup, isMobileIsp, type Loc, noGeo } from '../geo/geo.ts';
import type { AgentDialer } from '../policy/types.ts';
import { type ClaimWorker, startClaimWorker } from './claim-worker.ts';
import { type EchoResult, echoThroughAgent, type HttpTarget, parseHttpTarget } from './http-probe.ts';

export interface ProbeRequestWorkerOptions {
  db: DbHandle;
  nodeId: string;
  /** Opens streams through this node's agents (the gateway handle). */
  dialer: AgentDialer;
  /** Plain-http IP-echo URL: answers the caller's address as text or as JSON `{ "ip": … }`. */
  echoUrl: string;
  /** Turns the exit address into a location (the same lookup as the agent registry's). */
  geo?: GeoLookup;
  /** Reverse DNS of the exit address; `false` disables it. Default: the system resolver. */
  reverseDns?: ((ip: string) => Promise<string[]>) | false;
  /** Time for the request through the agent. Default 3 s (the API waits 5 s for the whole probe). */
  timeoutMs?: number;
  /** Time for the reverse-DNS lookup. Default 1 s. */
  dnsTimeoutMs?: number;
  /** Requests older than this are skipped: the API has given up on them. Default 10 s. */
  maxAgeMs?: number;
  /** Safety net for a missed notification: claim pending requests this often. Default 2 s. */
  sweepMs?: number;
  /** How often rows older than 10 minutes (abandoned by the API) are deleted. Default 5 min. */
  pruneMs?: number;
  onError?: (err: unknown) => void;
}

export type ProbeRequestWorker = ClaimWorker;

/** The exit as a probe saw it (the contract the API reads). */
export type ObservedExit = TProbeObservation;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const CLAIM_BATCH = 64;
const CLAIM = `
  UPDATE probe_requests SET claimed_at = now()
  WHERE id IN (
    SELECT id FROM probe_requests
    WHERE node_id = $1 AND claimed_at IS NULL AND requested_at > now() - make_interval(secs => $2)
    ORDER BY id LIMIT ${CLAIM_BATCH} FOR UPDATE SKIP LOCKED)
  RETURNING id::text AS id, agent_id`;

// COALESCE keeps what is known when the lookup knows nothing of the new address.
const UPDATE_AGENT = `
  UPDATE agents SET ip = $2, host = COALESCE($3, host),
    cc = COALESCE($4, cc), reg = COALESCE($5, reg), city = COALESCE($6, city), zip = COALESCE($7, zip),
    isp = COALESCE($8, isp), lat = COALESCE($9, lat), lon = COALESCE($10, lon),
    mob = CASE WHEN $4::text IS NULL THEN mob ELSE ($11 OR conn = 'cell') END
  WHERE id = $1 AND node_id = $12 AND (ip IS DISTINCT FROM $2 OR ($3::text IS NOT NULL AND host IS DISTINCT FROM $3)
    OR ($4::text IS NOT NULL AND (cc, reg, city, zip, isp) IS DISTINCT FROM ($4, $5, $6, $7, $8)))`;

const PRUNE = `DELETE FROM probe_requests WHERE node_id = $1 AND requested_at < now() - interval '10 minutes'`;

const FINISH = `
  WITH done AS (
    UPDATE probe_requests SET done_at = now(), ok = $2, latency_ms = $3, error = $4, observed = $5
    WHERE id = $1::bigint RETURNING id)
  SELECT pg_notify('${PROBE_DONE_CHANNEL}', id::text) FROM done`;

/** Starts answering this node's probe requests. */
export function startProbeRequestWorker(options: ProbeRequestWorkerOptions): ProbeRequestWorker {
  const { db, nodeId, dialer } = options;
  const geo = options.geo ?? noGeo;
  const onError = options.onError ?? (() => {});
  const target: HttpTarget = parseHttpTarget(options.echoUrl);
  const timeoutMs = options.timeoutMs ?? 3000;
  const dnsTimeoutMs = options.dnsTimeoutMs ?? 1000;
  const maxAgeS = (options.maxAgeMs ?? 10_000) / 1000;
  const reverse =
    options.reverseDns === false ? undefined : (options.reverseDns ?? ((ip: string) => dns.reverse(ip)));
  let closed = false;

  /** What the echo named, located; null when the probe failed. */
  async function observe(echo: EchoResult): Promise<{ seen: ObservedExit; found?: Loc } | null> {
    if (!echo.ok || !echo.ip) return null;
    const found = geo.lookup(echo.ip);
    let host: string | null = found?.host ?? null;
    if (host === null && reverse) {
      // No PTR record is a known answer (''); a failing or slow resolver is "unknown".
      host = await withTimeout(
        reverse(echo.ip).then(
          (names) => names[0] ?? '',
          (e: NodeJS.ErrnoException) => (e.code === 'ENOTFOUND' ? '' : null),
        ),
        dnsTimeoutMs,
      ).then((h) => h ?? null);
    }
    const loc = found
      ? { cc: found.cc, reg: found.reg, city: found.city, zip: found.zip, isp: found.isp, mob: found.mob }
      : null;
    return { seen: { ip: echo.ip, host, loc }, found };
  }

  async function run(id: string, agentId: string): Promise<void> {
    const echo = await echoThroughAgent(dialer, agentId, target, timeoutMs);
    let observed: ObservedExit | null = null;
    try {
      const o = await observe(echo);
      if (o) {
        const { seen, found } = o;
        await db.query(UPDATE_AGENT, [
          agentId,
          seen.ip,
          seen.host,
          found?.cc ?? null,
          found?.reg ?? null,
          found?.city ?? null,
          found?.zip ?? null,
          found?.isp ?? null,
          found?.lat ?? null,
          found?.lon ?? null,
          found ? found.mob || isMobileIsp(found.isp) : false,
          nodeId,
        ]);
        observed = seen;
      }
      // A purchase probe is a probe like the periodic ones: it counts towards `probe_actv`.
      await db.query('INSERT INTO agent_probes (agent_id, ok, latency_ms, error) VALUES ($1, $2, $3, $4)', [
        agentId,
        echo.ok,
        echo.latencyMs,
        echo.error ?? null,
      ]);
    } catch (e) {
      // The answer still goes back, so the API does not wait for its timeout.
      onError(e);
    }
    await db.query(FINISH, [
      id,
      echo.ok,
      echo.latencyMs,
      echo.error ?? null,
      observed ? JSON.stringify(observed) : null,
    ]);
  }

  const worker = startClaimWorker({
    db,
    nodeId,
    channel: PROBE_REQUESTED_CHANNEL,
    claimSql: CLAIM,
    batch: CLAIM_BATCH,
    maxAgeS,
    sweepMs: options.sweepMs ?? 2000,
    onError,
    run,
  });
  // The API deletes its rows; one it abandoned (a crash mid-wait) is removed here after a while.
  const prune = setInterval(
    () => {
      if (!closed) db.query(PRUNE, [nodeId]).catch(onError);
    },
    options.pruneMs ?? 5 * 60_000,
  );
  prune.unref();

  return {
    ready: worker.ready,
    async close() {
      closed = true;
      clearInterval(prune);
      await worker.close();
    },
  };
}
