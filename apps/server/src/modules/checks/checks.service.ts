import { AppError, cleanScore, SPEED_RETEST_MS, type TSpeedCheck, visibleBlacklists } from '@pm/contracts';
import type { Db } from '@pm/db';
import { forEachItem, type ItemFailures, UNREPORTED } from '../../platform/jobs.ts';
import type { ChecksSettings } from './checks.config.ts';
import type { DnsblChecker } from './checks.dnsbl.ts';
import { type CheckedAgent, createChecksRepository, type SpeedCheckRow } from './checks.repository.ts';

/** What the blacklist and speed check service is built from. */
export interface ChecksServiceDeps {
  db: Db;
  settings: ChecksSettings;
  dnsbl: Pick<DnsblChecker, 'check'>;
  now: () => number;
}

const agentNotFound = (id: string) =>
  new AppError('NOT_FOUND', {
    message: `no agent ${id} to check`,
    userMessage: 'Proxy not found',
    details: { errorCode: 'agentNotFound' },
  });

/** An agent the checks may run on: known, not static (no gateway speed test), with an address. */
export function assertCheckable(agent: CheckedAgent | undefined, id: string): asserts agent is CheckedAgent {
  if (!agent || agent.isStatic || agent.ip === '') throw agentNotFound(id);
}

/** A speed check as the API shows it; one its node has not finished in time counts as failed. */
export function toSpeedCheck(row: SpeedCheckRow, nowMs: number, timeoutMs: number): TSpeedCheck {
  const stuck =
    (row.status === 'requested' || row.status === 'checking') &&
    nowMs - row.requestedAt.getTime() > timeoutMs;
  const status = stuck ? 'failed' : row.status;
  return {
    status,
    bps: status === 'done' ? (row.bps ?? 0) : null,
    checkTime:
      row.doneAt?.toISOString() ??
      (stuck ? new Date(row.requestedAt.getTime() + timeoutMs).toISOString() : null),
    requestedAt: row.requestedAt.toISOString(),
    retestAt: new Date(row.requestedAt.getTime() + SPEED_RETEST_MS).toISOString(),
  };
}

/**
 * Blacklists (DNSBL lookups per agent address, the clean score) and speed checks (a job the
 * agent's gateway node runs, at most one per agent per 6 minutes).
 */
export function createChecksService(deps: ChecksServiceDeps) {
  const repo = createChecksRepository(deps.db);
  const { settings } = deps;

  async function checkAddress(agentId: string, ip: string) {
    const found = await deps.dnsbl.check(ip);
    const listIds = visibleBlacklists(found.listIds);
    const row = { agentId, ip, listIds, errorZones: found.errorZones, stars: cleanScore(listIds.length) };
    await repo.upsertBlacklists(row);
    return row;
  }

  return {
    /**
     * Looks up the agents whose address was never looked up, changed, or was looked up longer ago
     * than the recheck interval (at most one batch, `concurrency` at a time); an agent whose lookup
     * throws goes to `failures` and the others go on. Returns how many were due.
     */
    async sweepBlacklists(concurrency = 16, failures: ItemFailures = UNREPORTED): Promise<number> {
      const due = await repo.findDueForBlacklists(
        new Date(deps.now() - settings.dnsbl.recheckMs),
        settings.dnsbl.batchSize,
      );
      await forEachItem(due, { idOf: (a) => a.id, failures, concurrency }, (a) => checkAddress(a.id, a.ip));
      return due.length;
    },

    /** Looks one agent's current address up now (staff and tests; the sweep does this on its own). */
    async checkAgentBlacklists(agentId: string) {
      const agent = await repo.findAgent(agentId);
      assertCheckable(agent, agentId);
      return checkAddress(agent.id, agent.ip);
    },

    /**
     * The agent's speed check. With `request`, asks a new one of the agent's node unless one is
     * running (answered as it is) or the last was asked under 6 minutes ago (CONFLICT `rejected`
     * with `retestAt`). Without, the last one; NOT_FOUND `notFound` when none ran.
     */
    async getSpeedCheck(agentId: string, userId: string, request: boolean): Promise<TSpeedCheck> {
      const agent = await repo.findAgent(agentId);
      assertCheckable(agent, agentId);
      if (!request) {
        const last = await repo.findLatestSpeedCheck(agentId);
        if (last) return toSpeedCheck(last, deps.now(), settings.speedTimeoutMs);
        // The gateway's own last test of the agent, when it ran one.
        if (agent.speedBps !== null && agent.speedCheckedAt !== null) {
          const at = agent.speedCheckedAt;
          return {
            status: agent.speedBps > 0 ? 'done' : 'failed',
            bps: agent.speedBps > 0 ? agent.speedBps : null,
            checkTime: at.toISOString(),
            requestedAt: at.toISOString(),
            retestAt: new Date(at.getTime() + SPEED_RETEST_MS).toISOString(),
          };
        }
        throw new AppError('NOT_FOUND', {
          message: `no speed check of ${agentId}`,
          userMessage: 'No speed test yet',
          details: { errorCode: 'notFound' },
        });
      }
      if (agent.nodeId === null) throw agentNotFound(agentId);
      const nodeId = agent.nodeId;
      return deps.db.transaction(async (tx) => {
        await repo.lockAgentSpeedChecks(agentId, tx);
        const last = await repo.findLatestSpeedCheck(agentId, tx);
        if (last) {
          const shown = toSpeedCheck(last, deps.now(), settings.speedTimeoutMs);
          if (shown.status === 'requested' || shown.status === 'checking') return shown;
          if (deps.now() < last.requestedAt.getTime() + SPEED_RETEST_MS) {
            throw new AppError('CONFLICT', {
              message: `speed check of ${agentId} asked again before ${shown.retestAt}`,
              userMessage: 'Speed can be tested again in a few minutes',
              details: { errorCode: 'rejected', retestAt: shown.retestAt, check: shown },
            });
          }
        }
        const row = await repo.insertSpeedCheck(
          { agentId, nodeId, userId, requestedAt: new Date(deps.now()) },
          tx,
        );
        return toSpeedCheck(row, deps.now(), settings.speedTimeoutMs);
      });
    },
  };
}

export type ChecksService = ReturnType<typeof createChecksService>;
