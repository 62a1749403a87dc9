import { SPEED_CHECK_REQUESTED_CHANNEL } from '@pm/contracts';
import {
  agentBlacklists,
  agents,
  type Db,
  type DbOrTx,
  scoreCheckQuotes,
  scoreChecks,
  speedChecks,
  type Tx,
} from '@pm/db';
import type { Cents } from '@pm/money';
import { and, desc, eq, sql } from 'drizzle-orm';

export type SpeedCheckRow = typeof speedChecks.$inferSelect;
export type ScoreCheckRow = typeof scoreChecks.$inferSelect;
export type QuoteRow = typeof scoreCheckQuotes.$inferSelect;

/** The agent columns the checks read (read only: the gateway owns the row). */
export interface CheckedAgent {
  id: string;
  ip: string;
  nodeId: string | null;
  isStatic: boolean;
  speedBps: number | null;
  speedCheckedAt: Date | null;
}

/** The checks tables; the agents table is only read (address, node, the gateway's last speed test). */
export function createChecksRepository(db: Db) {
  return {
    async findAgent(id: string, tx: DbOrTx = db): Promise<CheckedAgent | undefined> {
      const rows = await tx
        .select({
          id: agents.id,
          ip: agents.ip,
          nodeId: agents.nodeId,
          isStatic: agents.isStatic,
          speedBps: agents.speedBps,
          speedCheckedAt: agents.speedCheckedAt,
        })
        .from(agents)
        .where(eq(agents.id, id));
      return rows[0];
    },

    /**
     * Agents whose address needs a blacklist lookup: never looked up, address changed since, or
     * looked up before `staleBefore`; those never looked up (or moved) first.
     */
    async findDueForBlacklists(staleBefore: Date, limit: number, tx: DbOrTx = db) {
      const rows = await tx.execute<{ id: string; ip: string }>(sql`
        SELECT a.id, a.ip FROM agents a LEFT JOIN agent_blacklists b ON b.agent_id = a.id
        WHERE a.ip <> '' AND (b.agent_id IS NULL OR b.ip <> a.ip OR b.checked_at < ${staleBefore.toISOString()}::timestamptz)
        ORDER BY (b.agent_id IS NULL OR b.ip <> a.ip) DESC, b.checked_at NULLS FIRST, a.id
        LIMIT ${limit}`);
      // node-postgres answers { rows }, PGlite an array.
      return (
        (rows as unknown as { rows?: { id: string; ip: string }[] }).rows ??
        (rows as unknown as { id: string; ip: string }[])
      );
    },

    async upsertBlacklists(
      row: { agentId: string; ip: string; listIds: string[]; errorZones: string[]; stars: number },
      tx: DbOrTx = db,
    ): Promise<void> {
      await tx
        .insert(agentBlacklists)
        .values(row)
        .onConflictDoUpdate({
          target: agentBlacklists.agentId,
          set: { ...row, checkedAt: sql`now()` },
        });
    },

    async findBlacklists(agentId: string, tx: DbOrTx = db) {
      const rows = await tx.select().from(agentBlacklists).where(eq(agentBlacklists.agentId, agentId));
      return rows[0];
    },

    /** Serialises speed-check requests of one agent until the transaction ends. */
    async lockAgentSpeedChecks(agentId: string, tx: Tx): Promise<void> {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`speedcheck:${agentId}`}, 0))`);
    },

    async findLatestSpeedCheck(agentId: string, tx: DbOrTx = db): Promise<SpeedCheckRow | undefined> {
      const rows = await tx
        .select()
        .from(speedChecks)
        .where(eq(speedChecks.agentId, agentId))
        .orderBy(desc(speedChecks.requestedAt), desc(speedChecks.id))
        .limit(1);
      return rows[0];
    },

    /** Inserts a requested speed check and tells the agent's node (delivered at commit). */
    async insertSpeedCheck(
      v: { agentId: string; nodeId: string; userId: string; requestedAt: Date },
      tx: DbOrTx = db,
    ): Promise<SpeedCheckRow> {
      const rows = await tx.insert(speedChecks).values(v).returning();
      await tx.execute(sql`SELECT pg_notify(${SPEED_CHECK_REQUESTED_CHANNEL}, ${v.nodeId})`);
      return rows[0]!;
    },

    async insertQuote(v: { token: string; userId: string; priceC: Cents; expiresAt: Date }, tx: DbOrTx = db) {
      await tx.insert(scoreCheckQuotes).values(v);
    },

    /** Locks the caller's quote so two purchases with one token take turns. */
    async lockQuote(token: string, userId: string, tx: Tx): Promise<QuoteRow | undefined> {
      const rows = await tx
        .select()
        .from(scoreCheckQuotes)
        .where(and(eq(scoreCheckQuotes.token, token), eq(scoreCheckQuotes.userId, userId)))
        .for('update');
      return rows[0];
    },

    async markQuoteUsed(token: string, tx: Tx): Promise<void> {
      await tx.update(scoreCheckQuotes).set({ usedAt: sql`now()` }).where(eq(scoreCheckQuotes.token, token));
    },

    async insertScoreCheck(
      v: { agentId: string; ip: string; userId: string; token: string; priceC: Cents },
      tx: DbOrTx = db,
    ): Promise<ScoreCheckRow> {
      const rows = await tx.insert(scoreChecks).values(v).returning();
      return rows[0]!;
    },

    /** Writes the outcome of a running check; false when it was no longer running. */
    async finishScoreCheck(
      id: number,
      v: { status: 'done' | 'refunded'; results: unknown; warnings: unknown },
      tx: DbOrTx = db,
    ): Promise<ScoreCheckRow | undefined> {
      const rows = await tx
        .update(scoreChecks)
        .set({ ...v, checkedAt: sql`now()` })
        .where(and(eq(scoreChecks.id, id), eq(scoreChecks.status, 'running')))
        .returning();
      return rows[0];
    },

    /** The newest finished check of the agent at this address. */
    async findLatestScoreCheck(
      agentId: string,
      ip: string,
      tx: DbOrTx = db,
    ): Promise<ScoreCheckRow | undefined> {
      const rows = await tx
        .select()
        .from(scoreChecks)
        .where(and(eq(scoreChecks.agentId, agentId), eq(scoreChecks.ip, ip), eq(scoreChecks.status, 'done')))
        .orderBy(desc(scoreChecks.checkedAt))
        .limit(1);
      return rows[0];
    },

    /** Checks left running by a crashed process before `before` (the recovery job refunds them). */
    async findStaleRunningScoreChecks(before: Date, tx: DbOrTx = db): Promise<ScoreCheckRow[]> {
      return tx
        .select()
        .from(scoreChecks)
        .where(
          and(
            eq(scoreChecks.status, 'running'),
            sql`${scoreChecks.createdAt} < ${before.toISOString()}::timestamptz`,
          ),
        )
        .limit(100);
    },
  };
}

export type ChecksRepository = ReturnType<typeof createChecksRepository>;
