import { PROBE_REQUESTED_CHANNEL } from '@pm/contracts';
import { type Db, type DbOrTx, probeRequests } from '@pm/db';
import { and, eq, isNotNull, sql } from 'drizzle-orm';

export type ProbeRequestRow = typeof probeRequests.$inferSelect;

/** Data access for `probe_requests`: the API's side of the channel to gateway nodes. */
export function createProbesRepository(db: Db) {
  return {
    /** Inserts a request for the node that holds the agent and notifies that node. Returns its id. */
    async insertRequest(agentId: string, nodeId: string, tx: DbOrTx = db): Promise<number> {
      const rows = await tx
        .insert(probeRequests)
        .values({ agentId, nodeId })
        .returning({ id: probeRequests.id });
      // After the insert has committed (autocommit), so the node always finds the row it is told of.
      await tx.execute(sql`SELECT pg_notify(${PROBE_REQUESTED_CHANNEL}, ${nodeId})`);
      return rows[0]!.id;
    },

    /** The request once its result is written; undefined while pending. */
    async findDone(id: number, tx: DbOrTx = db): Promise<ProbeRequestRow | undefined> {
      const rows = await tx
        .select()
        .from(probeRequests)
        .where(and(eq(probeRequests.id, id), isNotNull(probeRequests.doneAt)));
      return rows[0];
    },

    async delete(id: number, tx: DbOrTx = db): Promise<void> {
      await tx.delete(probeRequests).where(eq(probeRequests.id, id));
    },
  };
}
