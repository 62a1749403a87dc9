import {
  AppError,
  type LeaseEndReason,
  REFUND_MAX_SPEED_BPS,
  REFUND_MAX_TRAFFIC_BYTES,
  REFUND_WINDOW_MS,
  type RefundErrorCode,
  type TRefundResult,
} from '@pm/contracts';
import type { Tx } from '@pm/db';
import type { Cents } from '@pm/money';
import type { AuditService } from '../audit/audit.service.ts';
import { createLifecycleRepository } from './leases.lifecycle.repository.ts';
import type { LifecycleDeps } from './leases.renew.ts';
import type { AgentRow, LeaseRow } from './leases.repository.ts';
import { STATIC_REFUND_WINDOW_MS } from './leases.stats.ts';

/** The ledger's idempotency key of a lease's refund: a lease is refunded once, whoever asks. */
export const refundIdemKey = (leaseId: string) => `refund:${leaseId}`;

const REFUSALS: Record<RefundErrorCode, () => AppError> = {
  leaseNotEligible: () =>
    new AppError('VALIDATION_FAILED', {
      userMessage: 'Your lease is not eligible for a refund',
      details: { errorCode: 'leaseNotEligible', status: 'REFUND_STATUS_INELIGIBLE' },
    }),
  agentNotDead: () =>
    new AppError('CONFLICT', {
      userMessage: 'The proxy is responsive and thus ineligible for an auto-refund',
      details: { errorCode: 'agentNotDead', status: 'REFUND_STATUS_ALIVE' },
    }),
  notRefundable: () =>
    new AppError('CONFLICT', {
      userMessage: 'The proxy is responsive and thus ineligible for an auto-refund',
      details: { errorCode: 'notRefundable', status: 'REFUND_STATUS_ALIVE' },
    }),
};

/**
 * Why the customer may not refund this lease now, or undefined (rules §9): not ended, not static
 * (staff refund those), within the first 4 hours (leaseNotEligible otherwise); the agent offline
 * (agentNotDead); under 100 MB moved and a measured speed under 500 kbps (notRefundable). The same
 * rule as `isRefundable` for a leased proxy, with the reason.
 */
export function customerRefundRefusal(
  lease: LeaseRow,
  agent: AgentRow,
  nowMs: number,
): RefundErrorCode | undefined {
  if (lease.endedAt || lease.until.getTime() <= nowMs || lease.static) return 'leaseNotEligible';
  if (nowMs - lease.start.getTime() >= REFUND_WINDOW_MS) return 'leaseNotEligible';
  if (agent.online) return 'agentNotDead';
  if (lease.inBytes + lease.outBytes >= REFUND_MAX_TRAFFIC_BYTES) return 'notRefundable';
  if ((agent.speedBps ?? 0) >= REFUND_MAX_SPEED_BPS) return 'notRefundable';
  return undefined;
}

/** Staff refund of a static lease (rules §9): within 1 hour of its start and only if unused (no request, no byte). */
export function staticRefundRefusal(lease: LeaseRow, nowMs: number): RefundErrorCode | undefined {
  if (lease.endedAt || lease.until.getTime() <= nowMs) return 'leaseNotEligible';
  if (nowMs - lease.start.getTime() >= STATIC_REFUND_WINDOW_MS) return 'leaseNotEligible';
  if (lease.reqs > 0 || lease.inBytes + lease.outBytes > 0) return 'notRefundable';
  return undefined;
}

/**
 * Refunds a locked lease in the caller's transaction: credits `amountC` with a 'refund' record
 * (key `refund:<lease>`) and ends the lease as refunded, both or neither. Ending it raises the
 * lease_changed NOTIFY, so gateways stop its credentials within 2 seconds.
 */
export async function refundLocked(
  deps: Pick<LifecycleDeps, 'ledger' | 'db'>,
  lease: LeaseRow,
  end: { at: Date; reason: LeaseEndReason; amountC: Cents },
  tx: Tx,
): Promise<TRefundResult> {
  const repo = createLifecycleRepository(deps.db);
  let balanceC: Cents | undefined;
  if (end.amountC > 0) {
    const moved = await deps.ledger.move(
      {
        userId: lease.userId,
        amountC: end.amountC,
        type: 'refund',
        memo: `Refund of lease ${lease.id}`,
        idemKey: refundIdemKey(lease.id),
      },
      tx,
    );
    balanceC = moved.balanceC;
  }
  const ended = await repo.end(lease.id, { at: end.at, reason: end.reason, refundC: end.amountC }, tx);
  if (!ended) throw new AppError('INTERNAL', { message: `lease ${lease.id} ended under its lock` });
  return {
    status: 'REFUND_STATUS_REFUNDED',
    leaseID: lease.id,
    refundAmountC: end.amountC,
    balanceC: balanceC ?? (await deps.ledger.getBalance(lease.userId, tx)),
  };
}

/** What the refund service is built from: the lifecycle's deps and the audit trail for staff refunds. */
export interface RefundDeps extends LifecycleDeps {
  audit: Pick<AuditService, 'record'>;
}

/** Refunds on request: the customer's (`DELETE /leases/{id}`) and staff's for static leases. */
export function createRefundService(deps: RefundDeps) {
  const now = deps.now ?? Date.now;
  const repo = createLifecycleRepository(deps.db);

  async function refund(
    id: string,
    check: (lease: LeaseRow, agent: AgentRow, nowMs: number) => RefundErrorCode | undefined,
    reason: LeaseEndReason,
    caller: { ownerId: string } | { staffId: string; why?: string | undefined },
  ): Promise<TRefundResult> {
    return deps.db.transaction(async (tx) => {
      const lease = await repo.lockLease(id, tx);
      if (!lease || ('ownerId' in caller && lease.userId !== caller.ownerId))
        throw new AppError('NOT_FOUND', { userMessage: 'Lease not found' });
      if ('staffId' in caller && lease.userId === caller.staffId) {
        throw new AppError('FORBIDDEN', {
          message: `${caller.staffId} tried to refund their own lease ${id}`,
          userMessage: 'Staff cannot refund their own lease; ask another staff member',
        });
      }
      const agent = await repo.findAgent(lease.agentId, tx);
      if (!agent) throw new AppError('INTERNAL', { message: `lease ${id} has no agent row` });
      const nowMs = now();
      const refusal = check(lease, agent, nowMs);
      if (refusal) throw REFUSALS[refusal]();
      // Refunded within the first hours, before any renewal: the purchase price in full.
      const result = await refundLocked(
        deps,
        lease,
        { at: new Date(nowMs), reason, amountC: lease.purchasePriceC },
        tx,
      );
      if ('staffId' in caller) {
        await deps.audit.record(tx, {
          actorId: caller.staffId,
          action: 'lease.refund',
          targetId: lease.id,
          before: { userId: lease.userId, endedAt: null },
          after: { refundC: result.refundAmountC, balanceC: result.balanceC },
          reason: caller.why?.trim() || null,
        });
      }
      return result;
    });
  }

  return {
    /**
     * `DELETE /leases/{id}`: the caller's refund of a leased proxy under `customerRefundRefusal`'s
     * rule. Throws 400 leaseNotEligible, 409 agentNotDead / notRefundable, 404 for another's lease.
     */
    async refundLease(userId: string, id: string): Promise<TRefundResult> {
      return refund(id, customerRefundRefusal, 'refunded', { ownerId: userId });
    },

    /**
     * Staff refund on the customer's request (`POST /admin/leases/{id}/refund`): a static lease under
     * the static rule (1 hour, unused), any other under the customer's rule. Written to the audit
     * trail (`lease.refund`, with staff's reason) in the refund's transaction; a staff member's own
     * lease is a 403.
     */
    async staffRefundLease(id: string, staffId: string, why?: string): Promise<TRefundResult> {
      return refund(
        id,
        (lease, agent, nowMs) =>
          lease.static ? staticRefundRefusal(lease, nowMs) : customerRefundRefusal(lease, agent, nowMs),
        'staffRefunded',
        { staffId, why },
      );
    },
  };
}

/** The refund service's functions. */
export type RefundService = ReturnType<typeof createRefundService>;
