import { type TProbeObservation, ZProbeObservation } from '@pm/contracts';
import type { Db } from '@pm/db';
import { createProbesRepository } from './probes.repository.ts';

/** What the probe of an agent found: whether it answered through the gateway, and its exit. */
export interface ProbeOutcome {
  ok: boolean;
  /** Why it failed ('no answer from the gateway' when none came in time). */
  error: string | null;
  latencyMs: number | null;
  /** The exit the gateway saw; null when it failed or could not tell. */
  observed: TProbeObservation | null;
}

/** What the probe service is built from. */
export interface ProbeServiceDeps {
  db: Db;
  /** How long to wait for the gateway's answer (default 5000 ms). */
  timeoutMs?: number;
  /** How often to look for the answer (default 100 ms). */
  pollMs?: number;
}

/** The probe service's functions (derived from the factory). */
export type ProbeService = ReturnType<typeof createProbeService>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Probes through the gateway node that holds an agent's tunnel, with PostgreSQL as the only
 * channel (docs/gateway.md, "Purchase probes"): a `probe_requests` row and a notification to the
 * node, then the API looks for the result until the timeout. Polling rather than LISTEN keeps the
 * API free of a dedicated connection per process; a probe is a few indexed reads.
 */
export function createProbeService(deps: ProbeServiceDeps) {
  const repo = createProbesRepository(deps.db);
  const timeoutMs = deps.timeoutMs ?? 5000;
  const pollMs = deps.pollMs ?? 100;

  return {
    /**
     * Asks the agent's node to request an IP echo through the agent and waits at most the timeout
     * for the answer. Never throws for an agent that does not answer: that is `ok: false`.
     */
    async probeAgent(agentId: string, nodeId: string): Promise<ProbeOutcome> {
      const id = await repo.insertRequest(agentId, nodeId);
      const deadline = Date.now() + timeoutMs;
      try {
        while (Date.now() < deadline) {
          await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())));
          const row = await repo.findDone(id);
          if (!row) continue;
          const observed = ZProbeObservation.safeParse(row.observed);
          return {
            ok: row.ok === true,
            error: row.error,
            latencyMs: row.latencyMs,
            observed: observed.success ? observed.data : null,
          };
        }
        return { ok: false, error: 'no answer from the gateway', latencyMs: null, observed: null };
      } finally {
        // Answered or abandoned, the row has served its purpose; a late answer updates nothing.
        await repo.delete(id).catch(() => {});
      }
    },
  };
}
