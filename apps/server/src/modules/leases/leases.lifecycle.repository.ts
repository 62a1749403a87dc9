import { AUTO_REFUND_FAIL_PCT, type LeaseEndReason } from '@pm/contracts';
import { agentNotes, agents, type Db, type DbOrTx, leases, leaseTrafficHourly, type Tx } from '@pm/db';
import type { Cents } from '@pm/money';
import { and, asc, count, desc, eq, isNull, lt, lte, notInArray, or, type SQL, sql } from 'drizzle-orm';
import type { AgentRow, LeaseRow } from './leases.repository.ts';
import { autoRefundWindow } from './leases.stats.ts';

/** A history row: the lease, its agent, and the owner's note on the agent. */
export interface HistoryRow {
  lease: LeaseRow;
  agent: AgentRow;
  note: string | null;
}

/** History filter: the caller, leases overlapping [start, end), and an IP or note substring. */
export interface HistoryFilter {
  userId: string;
  start?: Date | undefined;
  end?: Date | undefined;
  query?: string | undefined;
}

/** `%text%` for ILIKE with the pattern characters escaped. */
const contains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Data access for the lease lifecycle (renew, refund, jobs, history, hourly traffic). Methods that
 * lock (`lock*`) require a `Tx`; the job pickers use SKIP LOCKED so two workers take different leases.
 */
export function createLifecycleRepository(db: Db) {
  function historyWhere(f: HistoryFilter): SQL {
    const parts: (SQL | undefined)[] = [eq(leases.userId, f.userId)];
    if (f.end) parts.push(lt(leases.start, f.end));
    if (f.start) parts.push(sql`coalesce(${leases.endedAt}, ${leases.until}) >= ${f.start}`);
    const q = f.query?.trim();
    if (q) {
      const like = contains(q);
      parts.push(
        or(
          sql`coalesce(${leases.info}->>'ip', ${agents.ip}) ILIKE ${like}`,
          sql`${agentNotes.note} ILIKE ${like}`,
        ),
      );
    }
    return and(...parts)!;
  }

  const noteJoin = and(eq(agentNotes.userId, leases.userId), eq(agentNotes.agentId, leases.agentId));

  return {
    /** Locks one lease (FOR UPDATE). */
    async lockLease(id: string, tx: Tx): Promise<LeaseRow | undefined> {
      const rows = await tx.select().from(leases).where(eq(leases.id, id)).for('update');
      return rows[0];
    },

    async findAgent(agentId: string, tx: DbOrTx = db): Promise<AgentRow | undefined> {
      const rows = await tx.select().from(agents).where(eq(agents.id, agentId));
      return rows[0];
    },

    /**
     * Extends a lease after a renewal, only if `until` is still `fromUntil` (a conditional update).
     * Compared to the millisecond, the precision `fromUntil` was read at: a row written with
     * microseconds (by hand or by SQL arithmetic) would otherwise never match, and its renewal throw.
     */
    async extend(
      id: string,
      change: { fromUntil: Date; toUntil: Date; priceC: Cents },
      tx: Tx,
    ): Promise<LeaseRow | undefined> {
      const sameUntil = sql`date_trunc('milliseconds', ${leases.until}) = ${change.fromUntil}`;
      const rows = await tx
        .update(leases)
        .set({ until: change.toUntil, lastPaymentC: change.priceC, renewals: sql`${leases.renewals} + 1` })
        .where(and(eq(leases.id, id), isNull(leases.endedAt), sameUntil))
        .returning();
      return rows[0];
    },

    /** Ends a lease that has not ended, at `at`, with its reason (and refund); undefined when it had ended. */
    async end(
      id: string,
      end: { at: Date; reason: LeaseEndReason; refundC?: Cents },
      tx: Tx,
    ): Promise<LeaseRow | undefined> {
      const rows = await tx
        .update(leases)
        .set({
          endedAt: end.at,
          endReason: end.reason,
          ...(end.refundC === undefined ? {} : { refundedAt: end.at, refundAmountC: end.refundC }),
        })
        .where(and(eq(leases.id, id), isNull(leases.endedAt)))
        .returning();
      return rows[0];
    },

    /**
     * Locks one lease due at its end, skipping rows another worker holds: not ended and past `until`,
     * or with auto-renew and within `leadMs` of it (except `skip`); undefined when none is left.
     */
    async lockNextDue(
      now: Date,
      leadMs: number,
      skip: readonly string[],
      tx: Tx,
    ): Promise<LeaseRow | undefined> {
      const due = or(
        lte(leases.until, now),
        and(eq(leases.autoRenew, true), lte(leases.until, new Date(now.getTime() + leadMs))),
      );
      const rows = await tx
        .select()
        .from(leases)
        .where(
          and(isNull(leases.endedAt), due, skip.length > 0 ? notInArray(leases.id, [...skip]) : undefined),
        )
        .orderBy(asc(leases.until))
        .limit(1)
        .for('update', { skipLocked: true });
      return rows[0];
    },

    /**
     * Locks one running, non-static lease due for the auto-refund (except `skip`): over the last
     * hour of its hourly rows (`autoRefundWindow`), at least `minRequests` requests, and
     * AUTO_REFUND_FAIL_PCT or more of them failed by the agent (`agent_fails`; the customer's own
     * failures never count).
     */
    async lockNextFailing(
      minRequests: number,
      now: Date,
      skip: readonly string[],
      tx: Tx,
    ): Promise<LeaseRow | undefined> {
      const w = autoRefundWindow(now.getTime());
      const h = leaseTrafficHourly;
      const weight = sql`CASE WHEN ${h.hour} >= ${w.hourStart} THEN 1.0 ELSE ${w.previousWeight}::float8 END`;
      const rows = await tx
        .select()
        .from(leases)
        .where(
          and(
            sql`lease_active(${leases.endedAt}, ${leases.until}, ${now.toISOString()}::timestamptz)`,
            eq(leases.static, false),
            skip.length > 0 ? notInArray(leases.id, [...skip]) : undefined,
            sql`EXISTS (
              SELECT 1 FROM ${h}
              WHERE ${h.leaseId} = ${leases.id} AND ${h.hour} >= ${w.previousHour}
              HAVING sum(${h.reqs} * ${weight}) >= ${minRequests}
                AND sum(${h.agentFails} * ${weight}) * 100 >= sum(${h.reqs} * ${weight}) * ${AUTO_REFUND_FAIL_PCT}
            )`,
          ),
        )
        .limit(1)
        .for('update', { skipLocked: true });
      return rows[0];
    },

    /** A page of the user's leases overlapping the dates, newest first, and the total. */
    async findHistory(
      f: HistoryFilter,
      page: { offset: number; limit: number },
      tx: DbOrTx = db,
    ): Promise<{ rows: HistoryRow[]; total: number }> {
      const where = historyWhere(f);
      const rows = await tx
        .select({ lease: leases, agent: agents, note: agentNotes.note })
        .from(leases)
        .innerJoin(agents, eq(agents.id, leases.agentId))
        .leftJoin(agentNotes, noteJoin)
        .where(where)
        .orderBy(desc(leases.start), desc(leases.id))
        .offset(page.offset)
        .limit(page.limit);
      const [totalRow] = await tx
        .select({ n: count() })
        .from(leases)
        .innerJoin(agents, eq(agents.id, leases.agentId))
        .leftJoin(agentNotes, noteJoin)
        .where(where);
      return { rows, total: totalRow?.n ?? 0 };
    },

    /** A lease's hourly traffic, oldest first. */
    async findTrafficHours(leaseId: string, tx: DbOrTx = db) {
      return tx
        .select()
        .from(leaseTrafficHourly)
        .where(eq(leaseTrafficHourly.leaseId, leaseId))
        .orderBy(asc(leaseTrafficHourly.hour));
    },

    /** The lease's owner, or undefined when there is no such lease. */
    async findOwner(id: string, tx: DbOrTx = db): Promise<string | undefined> {
      const rows = await tx.select({ userId: leases.userId }).from(leases).where(eq(leases.id, id));
      return rows[0]?.userId;
    },
  };
}

/** The lifecycle repository's functions. */
export type LifecycleRepository = ReturnType<typeof createLifecycleRepository>;
