import { packagePorts, portPackages, type Tx } from '@pm/db';
import { and, asc, eq, inArray, isNotNull, sql } from 'drizzle-orm';

/**
 * The rows of sold ports their node could not listen on (`bind_error`, written by the gateway)
 * and what the `ports.rebind` job does with them. Row locks follow the refund's order: the
 * package first, then its ports.
 */
export function createPortBindsRepository() {
  return {
    /**
     * Locks the next active package with an unbound port, leaving out `skip` and packages another
     * transaction holds (SKIP LOCKED): its id, or undefined when none is left.
     */
    async lockNextWithUnboundPorts(skip: readonly string[], tx: Tx): Promise<{ id: string } | undefined> {
      const rows = await tx
        .select({ id: portPackages.id })
        .from(portPackages)
        .where(
          and(
            eq(portPackages.status, 'active'),
            sql`${portPackages.id} <> ALL(${sql.param([...skip])}::text[])`,
            sql`EXISTS (SELECT 1 FROM ${packagePorts} WHERE ${packagePorts.packageId} = ${portPackages.id} AND ${packagePorts.bindError} IS NOT NULL)`,
          ),
        )
        .orderBy(asc(portPackages.id))
        .limit(1)
        .for('update', { skipLocked: true });
      return rows[0];
    },

    /** The package's unbound ports, their rows locked, lowest first (after the package's lock). */
    async lockUnboundPorts(packageId: string, tx: Tx): Promise<{ port: number; error: string }[]> {
      const rows = await tx
        .select({ port: packagePorts.port, error: sql<string>`${packagePorts.bindError}` })
        .from(packagePorts)
        .where(and(eq(packagePorts.packageId, packageId), isNotNull(packagePorts.bindError)))
        .orderBy(asc(packagePorts.port))
        .for('update');
      return rows;
    },

    /**
     * Moves a package from its unbound ports to spares of the same node (`to`, locked by
     * `allocatePorts`): the unbound rows go, the spares take the package, and the node reloads the
     * package at commit (`port_package_changed`, as a rotation tells it).
     */
    async movePorts(
      p: { id: string; nodeId: string },
      from: readonly number[],
      to: readonly number[],
      tx: Tx,
    ): Promise<void> {
      await tx
        .delete(packagePorts)
        .where(and(eq(packagePorts.packageId, p.id), inArray(packagePorts.port, [...from])));
      await tx
        .update(packagePorts)
        .set({ packageId: p.id, agentId: null, rotateSeq: 0, rotatedAt: null })
        .where(and(eq(packagePorts.nodeId, p.nodeId), inArray(packagePorts.port, [...to])));
      await tx.execute(sql`SELECT pg_notify('port_package_changed', ${p.id})`);
    },
  };
}

/** The port binds repository's functions. */
export type PortBindsRepository = ReturnType<typeof createPortBindsRepository>;
