import {
  ADMIN_USER_URN_PREFIX,
  AppError,
  type TAdminLease,
  type TAdminLeasesQuery,
  type TAdminLeasesResponse,
  type TLeaseCreditResult,
} from '@pm/contracts';
import type { Db } from '@pm/db';
import type { AuditService } from '../audit/audit.service.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import { refundIdemKey } from './leases.refund.ts';
import type { LeaseRow } from './leases.repository.ts';
import { createStaffLeaseRepository, type StaffLeaseRow } from './leases.staff.repository.ts';

/** What the staff lease service is built from. */
export interface StaffLeaseDeps {
  db: Db;
  ledger: Pick<LedgerService, 'move'>;
  audit: Pick<AuditService, 'record'>;
  /** The clock the agents' active leases are counted at (tests move it instead of waiting). */
  now?: () => number;
}

/** True when staff may credit the lease's purchase price: it has ended and was never refunded or credited. */
export const isCreditable = (lease: LeaseRow): boolean =>
  lease.endedAt !== null && lease.refundedAt === null && lease.purchasePriceC > 0;

/** Maps a looked-up lease to rules §3's admin lease info (plus the screen's extra fields). */
export function toAdminLease({ lease, agentIp, activeOnAgent }: StaffLeaseRow): TAdminLease {
  const info = lease.info as { ip?: unknown };
  return {
    id: lease.id,
    user: `${ADMIN_USER_URN_PREFIX}${lease.userId}`,
    userId: lease.userId,
    agentId: lease.agentId,
    ip: typeof info.ip === 'string' ? info.ip : agentIp,
    purchasePriceC: lease.purchasePriceC,
    refundAmountC: lease.refundAmountC ?? null,
    refundTime: lease.refundedAt ? lease.refundedAt.toISOString() : null,
    ended: lease.endedAt !== null,
    endedAt: lease.endedAt ? lease.endedAt.toISOString() : null,
    endReason: lease.endReason,
    static: lease.static,
    start: lease.start.toISOString(),
    until: lease.until.toISOString(),
    exc: lease.exc,
    leases: activeOnAgent,
    autoRenew: lease.autoRenew,
    trafficBytes: lease.inBytes + lease.outBytes,
    creditable: isCreditable(lease),
  };
}

const notFound = (id: string) =>
  new AppError('NOT_FOUND', { message: `no lease ${id}`, userMessage: 'Lease not found' });

/** Staff's lease look-ups (by id, by customer, by IP) and the credit of an ended lease's purchase price. */
export function createStaffLeaseService(deps: StaffLeaseDeps) {
  const repo = createStaffLeaseRepository(deps.db);
  const now = deps.now ?? Date.now;

  return {
    /** `GET /leases/{id}` (staff): the admin lease info, or NOT_FOUND. */
    async getLease(id: string): Promise<TAdminLease> {
      const row = await repo.findById(id, new Date(now()));
      if (!row) throw notFound(id);
      return toAdminLease(row);
    },

    /** `GET /admin/leases?uid=&ip=` (staff): newest first. */
    async findLeases(query: TAdminLeasesQuery): Promise<TAdminLeasesResponse> {
      const { rows, total } = await repo.find({
        userId: query.uid,
        ip: query.ip,
        offset: query.offset,
        limit: query.limit,
        at: new Date(now()),
      });
      return { leases: rows.map(toAdminLease), total };
    },

    /**
     * `POST /admin/leases/{id}/credit` (rules §5): credits the owner the lease's purchase price, only
     * once the lease has ended (400 `leaseNotEnded` before), once per lease (409 when it was refunded
     * or credited already: the ledger key is the refund's, `refund:<lease>`), never by staff on their
     * own lease (403). The credit, the lease's refund fields and the `lease.credit` audit row are one
     * transaction.
     */
    async creditLease(id: string, staffId: string, reason?: string): Promise<TLeaseCreditResult> {
      return deps.db.transaction(async (tx) => {
        const lease = await repo.lock(id, tx);
        if (!lease) throw notFound(id);
        if (lease.userId === staffId) {
          throw new AppError('FORBIDDEN', {
            message: `${staffId} tried to credit their own lease ${id}`,
            userMessage: 'Staff cannot credit their own lease; ask another staff member',
          });
        }
        if (lease.endedAt === null) {
          throw new AppError('VALIDATION_FAILED', {
            userMessage: 'The lease has not ended yet; credit it once it has ended',
            details: { errorCode: 'leaseNotEnded', field: 'id' },
          });
        }
        if (lease.refundedAt !== null) {
          throw new AppError('CONFLICT', {
            userMessage: 'This lease was already refunded or credited',
            details: { errorCode: 'alreadyCredited' },
          });
        }
        if (lease.purchasePriceC <= 0) {
          throw new AppError('VALIDATION_FAILED', {
            userMessage: 'The lease was free; there is nothing to credit',
            details: { errorCode: 'nothingToCredit', field: 'id' },
          });
        }
        const moved = await deps.ledger.move(
          {
            userId: lease.userId,
            amountC: lease.purchasePriceC,
            type: 'refund',
            memo: `Credit of lease ${lease.id} by support`,
            idemKey: refundIdemKey(lease.id),
          },
          tx,
        );
        // The key was used before (a refund that left no mark on the lease): nothing new to credit.
        if (moved.replayed) {
          throw new AppError('CONFLICT', {
            userMessage: 'This lease was already refunded or credited',
            details: { errorCode: 'alreadyCredited' },
          });
        }
        const marked = await repo.markCredited(lease.id, new Date(now()), lease.purchasePriceC, tx);
        if (!marked) throw new AppError('INTERNAL', { message: `lease ${id} changed under its lock` });
        await deps.audit.record(tx, {
          actorId: staffId,
          action: 'lease.credit',
          targetId: lease.id,
          before: { userId: lease.userId, refundAmountC: null },
          after: { creditC: lease.purchasePriceC, balanceC: moved.balanceC },
          reason: reason?.trim() || undefined,
        });
        return {
          leaseID: lease.id,
          userId: lease.userId,
          creditC: lease.purchasePriceC,
          balanceC: moved.balanceC,
        };
      });
    },
  };
}

/** The staff lease service's functions. */
export type StaffLeaseService = ReturnType<typeof createStaffLeaseService>;
