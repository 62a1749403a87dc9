import {
  AppError,
  LEASE_TRAFFIC_CSV_HEADER,
  type LeaseEndReason,
  type TLeaseHistoryItem,
  type TLeaseHistoryResponse,
  type TLeaseTrafficResponse,
  ZLeaseInfo,
} from '@pm/contracts';
import type { Db } from '@pm/db';
import type { Cents } from '@pm/money';
import {
  createLifecycleRepository,
  type HistoryFilter,
  type HistoryRow,
} from './leases.lifecycle.repository.ts';

/** A history row as rules §3 "Lease history item" shapes it, plus how it ended. IP and location are those at purchase. */
export function toHistoryItem({ lease, agent, note }: HistoryRow): TLeaseHistoryItem {
  const info = ZLeaseInfo.safeParse(lease.info);
  const loc = info.success
    ? info.data.loc
    : { cc: agent.cc, reg: agent.reg, city: agent.city, zip: agent.zip, isp: agent.isp, mob: agent.mob };
  return {
    leaseID: lease.id,
    agentID: lease.agentId,
    ip: info.success ? info.data.ip : agent.ip,
    socksUser: lease.socksUser,
    start: lease.start.toISOString(),
    paidUntil: lease.until.toISOString(),
    loc,
    note: note ?? '',
    lastPaymentC: (lease.lastPaymentC ?? lease.purchasePriceC) as Cents,
    purchasePriceC: lease.purchasePriceC,
    exc: lease.exc,
    static: lease.static,
    endedAt: lease.endedAt?.toISOString() ?? null,
    endReason: (lease.endReason as LeaseEndReason | null) ?? null,
    refunded: lease.refundedAt !== null,
    refundAmountC: lease.refundAmountC,
  };
}

/** `hour,requests,failed,bytes_in,bytes_out` lines; every field is a number or an ISO time, so nothing needs quoting. */
export function toTrafficCsv(traffic: TLeaseTrafficResponse): string {
  const lines = traffic.hours.map((h) => `${h.hour},${h.reqs},${h.fails},${h.inBytes},${h.outBytes}`);
  return `${[LEASE_TRAFFIC_CSV_HEADER, ...lines].join('\r\n')}\r\n`;
}

/** The customer's lease history and a lease's hourly traffic. */
export function createHistoryService(deps: { db: Db }) {
  const repo = createLifecycleRepository(deps.db);
  return {
    /** `GET /leaseHistory`: the caller's leases overlapping [start, end), newest first, with the total. */
    async listHistory(
      filter: HistoryFilter,
      page: { offset: number; limit: number },
    ): Promise<TLeaseHistoryResponse> {
      const { rows, total } = await repo.findHistory(filter, page);
      return { items: rows.map(toHistoryItem), total };
    },

    /** `GET /leases/{id}/traffic`: the caller's lease's hourly traffic, oldest first; another's lease is NOT_FOUND. */
    async getTraffic(userId: string, id: string): Promise<TLeaseTrafficResponse> {
      if ((await repo.findOwner(id)) !== userId)
        throw new AppError('NOT_FOUND', { userMessage: 'Lease not found' });
      const hours = await repo.findTrafficHours(id);
      return {
        leaseID: id,
        hours: hours.map((h) => ({
          hour: h.hour.toISOString(),
          reqs: h.reqs,
          fails: h.fails,
          authFails: h.authFails,
          inBytes: h.inBytes,
          outBytes: h.outBytes,
        })),
      };
    },
  };
}

/** The history service's functions. */
export type HistoryService = ReturnType<typeof createHistoryService>;
