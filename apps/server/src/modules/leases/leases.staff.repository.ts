import { agents, type Db, type DbOrTx, leases, type Tx } from '@pm/db';
import type { Cents } from '@pm/money';
import { and, count, desc, eq, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { LeaseRow } from './leases.repository.ts';

/** A lease as staff look it up: the row, its agent's IP and how many leases run on the agent now. */
export interface StaffLeaseRow {
  lease: LeaseRow;
  agentIp: string | null;
  activeOnAgent: number;
}

/** Staff look-up filter: the owner, or the IP (the lease's snapshot or the agent's current one). */
export interface StaffLeaseFilter {
  userId?: string | undefined;
  ip?: string | undefined;
}

/** Leases on the row's agent active at `at` (the SQL rule `lease_active` at the service's clock). */
const activeOnAgent = (at: Date) =>
  sql<number>`(SELECT count(*)::int FROM ${leases} l2 WHERE l2.agent_id = ${leases.agentId} AND lease_active(l2.ended_at, l2.until, ${at.toISOString()}::timestamptz))`;

/** Data access for staff's lease look-ups and the purchase-price credit of an ended lease. */
export function createStaffLeaseRepository(db: Db) {
  function where(f: StaffLeaseFilter): SQL | undefined {
    return and(
      f.userId !== undefined ? eq(leases.userId, f.userId) : undefined,
      f.ip !== undefined ? or(sql`${leases.info}->>'ip' = ${f.ip}`, eq(agents.ip, f.ip)) : undefined,
    );
  }
  const select = (tx: DbOrTx, at: Date) =>
    tx
      .select({ lease: leases, agentIp: agents.ip, activeOnAgent: activeOnAgent(at) })
      .from(leases)
      .leftJoin(agents, eq(agents.id, leases.agentId));

  return {
    /** One lease, its agent's leases counted as active at `at`. */
    async findById(id: string, at: Date, tx: DbOrTx = db): Promise<StaffLeaseRow | undefined> {
      const rows = await select(tx, at).where(eq(leases.id, id));
      return rows[0];
    },

    /** One page of matching leases, newest start first (agents' leases counted at `f.at`), and the total. */
    async find(
      f: StaffLeaseFilter & { offset: number; limit: number; at: Date },
      tx: DbOrTx = db,
    ): Promise<{ rows: StaffLeaseRow[]; total: number }> {
      const [rows, totals] = await Promise.all([
        select(tx, f.at)
          .where(where(f))
          .orderBy(desc(leases.start), desc(leases.id))
          .offset(f.offset)
          .limit(f.limit),
        tx
          .select({ n: count() })
          .from(leases)
          .leftJoin(agents, eq(agents.id, leases.agentId))
          .where(where(f)),
      ]);
      return { rows, total: totals[0]?.n ?? 0 };
    },

    /** Locks one lease (FOR UPDATE). */
    async lock(id: string, tx: Tx): Promise<LeaseRow | undefined> {
      const rows = await tx.select().from(leases).where(eq(leases.id, id)).for('update');
      return rows[0];
    },

    /** Marks an ended, never-refunded lease as credited `amountC` at `at`; undefined if it no longer qualifies. */
    async markCredited(id: string, at: Date, amountC: Cents, tx: Tx): Promise<LeaseRow | undefined> {
      const rows = await tx
        .update(leases)
        .set({ refundedAt: at, refundAmountC: amountC })
        .where(and(eq(leases.id, id), isNull(leases.refundedAt), sql`${leases.endedAt} IS NOT NULL`))
        .returning();
      return rows[0];
    },
  };
}
