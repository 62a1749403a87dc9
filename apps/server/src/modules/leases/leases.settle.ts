import { AppError } from '@pm/contracts';
import type { Tx } from '@pm/db';
import type { Cents } from '@pm/money';
import { type ItemFailures, settleEach, UNREPORTED } from '../../platform/jobs.ts';
import { createLifecycleRepository } from './leases.lifecycle.repository.ts';
import { refundLocked } from './leases.refund.ts';
import { isSaleRefusal, type LifecycleDeps, lifecycleAgents, renewLocked } from './leases.renew.ts';
import type { LeaseRow } from './leases.repository.ts';
import { AUTO_REFUND_MIN_REQUESTS } from './leases.stats.ts';

/** Auto-renew is tried from this long before the end, so the credentials never lapse while the job runs every minute. */
export const AUTO_RENEW_LEAD_MS = 2 * 60 * 1000;
/**
 * A lease found this long past its end (the worker was down) is not renewed: the customer would pay
 * for hours already lost. Within it a lapsed lease is renewed only if the agent's lock and the one
 * availability rule (leaving the lease itself out) find its slot still free.
 */
export const AUTO_RENEW_LATE_MS = 10 * 60 * 1000;
/** Leases one job run settles at most (the next run, a minute later, takes the rest). */
export const SETTLE_BATCH = 500;

/** What one run of a lifecycle job did, by lease id (the leases it skipped went to its `failures`). */
export interface SettleReport {
  renewed: string[];
  ended: string[];
  refunded: string[];
}

/**
 * The lifecycle jobs' work, through `settleEach`: each lease is settled in its own transaction that
 * locks its row with SKIP LOCKED (two workers take different leases), re-checks the condition under
 * the lock and writes conditionally, with the ledger move keyed per lease and period
 * (`renew:<lease>:<until>`, `refund:<lease>`): a crash rolls back the one lease in hand and a re-run
 * finds it still due. A lease whose settling throws is rolled back, reported and skipped, so the
 * rest of the batch still expires, renews and refunds.
 */
export function createSettleService(deps: LifecycleDeps) {
  const now = deps.now ?? Date.now;
  const repo = createLifecycleRepository(deps.db);
  const agents = lifecycleAgents(deps);

  /** Renews or ends one due lease under its lock; `short` when a later run should try again. */
  async function settleDue(lease: LeaseRow, nowMs: number, tx: Tx) {
    if (lease.autoRenew && lease.until.getTime() > nowMs - AUTO_RENEW_LATE_MS) {
      try {
        // A savepoint: a refused debit leaves the transaction usable for ending the lease.
        await tx.transaction((sp) => renewLocked({ ...deps, agents }, lease, sp));
        return { id: lease.id, kind: 'renewed' as const };
      } catch (e) {
        // Short of funds, the account blocked, or the agent taken since the lease lapsed.
        const short = e instanceof AppError && e.code === 'PAYMENT_REQUIRED';
        const blocked = e instanceof AppError && e.code === 'FORBIDDEN';
        if (!short && !blocked && !isSaleRefusal(e)) throw e;
        // Before the end a later run tries again (funds added, unblocked).
        if (lease.until.getTime() > nowMs) return { id: lease.id, kind: 'short' as const };
        await repo.end(lease.id, { at: lease.until, reason: short ? 'autoRenewNoFunds' : 'expired' }, tx);
        return { id: lease.id, kind: 'ended' as const };
      }
    }
    await repo.end(lease.id, { at: lease.until, reason: 'expired' }, tx);
    return { id: lease.id, kind: 'ended' as const };
  }

  return {
    /**
     * `leases.expire`: every lease at its end. With auto-renew it renews (from AUTO_RENEW_LEAD_MS
     * before the end) when the balance covers the renewal; a short balance is retried next run until
     * the end and then the lease ends `autoRenewNoFunds`. A blocked customer's lease is not renewed
     * (retried until the end, then `expired`); a lease past its end is renewed only while its slot
     * on the agent is still free under the agent's lock (else `expired`). Without auto-renew it ends
     * `expired` at `until`.
     */
    async settleDueLeases(limit = SETTLE_BATCH, failures: ItemFailures = UNREPORTED): Promise<SettleReport> {
      const report: SettleReport = { renewed: [], ended: [], refunded: [] };
      const shortOfFunds: string[] = [];
      let nowMs = now();
      await settleEach(deps.db, {
        limit,
        failures,
        next: (skip, tx) => {
          nowMs = now();
          return repo.lockNextDue(new Date(nowMs), AUTO_RENEW_LEAD_MS, [...skip, ...shortOfFunds], tx);
        },
        settle: async (lease, tx) => {
          const outcome = await settleDue(lease, nowMs, tx);
          if (outcome.kind === 'short') shortOfFunds.push(outcome.id);
          else report[outcome.kind].push(outcome.id);
        },
      });
      return report;
    },

    /**
     * `leases.autoRefund`: refunds every running non-static lease whose last hour (its hourly rows)
     * holds AUTO_REFUND_MIN_REQUESTS requests or more, 40% or more of them failed by the agent (the
     * failure classes, docs/gateway.md), with the last amount paid for it (the purchase price unless
     * renewed), and ends it `autoRefunded`. Static leases are refunded through support.
     */
    async autoRefundFailing(
      limit = SETTLE_BATCH,
      minRequests = AUTO_REFUND_MIN_REQUESTS,
      failures: ItemFailures = UNREPORTED,
    ): Promise<SettleReport> {
      let nowMs = now();
      const { settled } = await settleEach(deps.db, {
        limit,
        failures,
        next: (skip, tx) => {
          nowMs = now();
          return repo.lockNextFailing(minRequests, new Date(nowMs), skip, tx);
        },
        settle: async (lease, tx) => {
          const amountC = (lease.lastPaymentC ?? lease.purchasePriceC) as Cents;
          await refundLocked(deps, lease, { at: new Date(nowMs), reason: 'autoRefunded', amountC }, tx);
          return lease.id;
        },
      });
      return { renewed: [], ended: [], refunded: settled };
    },
  };
}

/** The settle service's functions. */
export type SettleService = ReturnType<typeof createSettleService>;
