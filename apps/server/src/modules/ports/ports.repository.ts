import {
  agents,
  type Db,
  type DbOrTx,
  gatewayNodes,
  packagePorts,
  packageTrafficHourly,
  portPackages,
  portPricing,
  type Tx,
} from '@pm/db';
import { and, asc, desc, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';

export type PackageRow = typeof portPackages.$inferSelect;
export type NewPackageRow = typeof portPackages.$inferInsert;
export type NodeRow = typeof gatewayNodes.$inferSelect;
export type PriceRow = typeof portPricing.$inferSelect;

/** Where a package's exits may come from: its country, optional state and city, connection type. */
export interface ExitFilter {
  /** '' for every country (the country list). */
  country: string;
  state: string;
  city: string;
  connectionType: 'wifi' | 'mobile' | 'both';
}

/**
 * The exits a package may use (the gateway loads the same rule): online, not static, on a node, no
 * private lease on it, and the place and connection the SQL rule `exit_matches` accepts (country,
 * state and city compared by `place_key`; wifi, mobile = cell, or both).
 */
export function exitCondition(f: ExitFilter) {
  return and(
    eq(agents.online, true),
    eq(agents.isStatic, false),
    isNotNull(agents.nodeId),
    eq(agents.activeExclusive, 0),
    sql`exit_matches(${agents.cc}, ${agents.reg}, ${agents.city}, ${agents.conn}, ${f.country}, ${f.state}, ${f.city}, ${f.connectionType})`,
  );
}

/** The only Drizzle user of the ports module; every method takes the caller's `tx` last. */
export function createPortsRepository(db: Db) {
  return {
    async findPriceRows(tx: DbOrTx = db): Promise<PriceRow[]> {
      return tx.select().from(portPricing).orderBy(asc(portPricing.kind), asc(portPricing.key));
    },

    /** Replaces the price table (the table lock makes concurrent replacements take turns). */
    async replacePriceRows(
      rows: readonly { kind: string; key: string; value: number }[],
      updatedBy: string,
      tx: Tx,
    ): Promise<void> {
      await tx.execute(sql`LOCK TABLE ${portPricing} IN SHARE ROW EXCLUSIVE MODE`);
      await tx.delete(portPricing);
      await tx.insert(portPricing).values(rows.map((r) => ({ ...r, updatedAt: sql`now()`, updatedBy })));
    },

    /** The node with the most matching exits (ties: the node id), and how many; undefined when none. */
    async findBestNode(
      f: ExitFilter,
      tx: DbOrTx = db,
    ): Promise<{ node: NodeRow; exits: number } | undefined> {
      const rows = await tx
        .select({ node: gatewayNodes, exits: sql<number>`count(*)::int` })
        .from(agents)
        .innerJoin(gatewayNodes, eq(gatewayNodes.id, agents.nodeId))
        .where(exitCondition(f))
        .groupBy(gatewayNodes.id)
        .orderBy(desc(sql`count(*)`), asc(gatewayNodes.id))
        .limit(1);
      return rows[0];
    },

    async findNode(id: string, tx: DbOrTx = db): Promise<NodeRow | undefined> {
      return (await tx.select().from(gatewayNodes).where(eq(gatewayNodes.id, id)))[0];
    },

    /**
     * Takes `count` of the node's spare ports (bound and confirmed by the node, `store/spare-ports.ts`
     * in the gateway), lowest first, their rows locked so a parallel purchase skips them: a port
     * is sold only where the node listens on it. Fewer than `count` when the node has fewer spares.
     */
    async allocatePorts(nodeId: string, count: number, tx: Tx): Promise<number[]> {
      const rows = await tx
        .select({ port: packagePorts.port })
        .from(packagePorts)
        .where(
          and(
            eq(packagePorts.nodeId, nodeId),
            isNull(packagePorts.packageId),
            isNotNull(packagePorts.boundAt),
            isNull(packagePorts.bindError),
          ),
        )
        .orderBy(asc(packagePorts.port))
        .limit(count)
        .for('update', { skipLocked: true });
      return rows.map((r) => r.port);
    },

    /** Inserts the package and gives it the spare ports `allocatePorts` took (locked by this `tx`). */
    async insertPackage(row: NewPackageRow, ports: readonly number[], tx: Tx): Promise<PackageRow> {
      const inserted = (await tx.insert(portPackages).values(row).returning())[0]!;
      const taken = await tx
        .update(packagePorts)
        .set({ packageId: inserted.id, agentId: null, rotateSeq: 0, rotatedAt: null })
        .where(
          and(
            eq(packagePorts.nodeId, inserted.nodeId),
            inArray(packagePorts.port, [...ports]),
            isNull(packagePorts.packageId),
          ),
        )
        .returning({ port: packagePorts.port });
      if (taken.length !== ports.length) {
        throw new Error(
          `package ${inserted.id}: ${ports.length - taken.length} of its ports are no spares of ${inserted.nodeId}`,
        );
      }
      return inserted;
    },

    async lockPackage(id: string, tx: Tx): Promise<PackageRow | undefined> {
      return (await tx.select().from(portPackages).where(eq(portPackages.id, id)).for('update'))[0];
    },

    async findPackagesOfUser(userId: string, tx: DbOrTx = db): Promise<PackageRow[]> {
      return tx
        .select()
        .from(portPackages)
        .where(eq(portPackages.userId, userId))
        .orderBy(desc(portPackages.createdAt), desc(portPackages.id));
    },

    /** Each package's ports, lowest first. */
    async findPorts(packageIds: readonly string[], tx: DbOrTx = db): Promise<Map<string, number[]>> {
      const out = new Map<string, number[]>();
      if (packageIds.length === 0) return out;
      const rows = await tx
        .select({ packageId: sql<string>`${packagePorts.packageId}`, port: packagePorts.port })
        .from(packagePorts)
        .where(sql`${packagePorts.packageId} = ANY(${sql.param([...packageIds])}::text[])`)
        .orderBy(asc(packagePorts.port));
      for (const r of rows) {
        const list = out.get(r.packageId) ?? [];
        list.push(r.port);
        out.set(r.packageId, list);
      }
      return out;
    },

    /** The current exit (agent address) of each port of the packages that has one. */
    async findExits(
      packageIds: readonly string[],
      tx: DbOrTx = db,
    ): Promise<Map<string, { port: number; ip: string }[]>> {
      const out = new Map<string, { port: number; ip: string }[]>();
      if (packageIds.length === 0) return out;
      const rows = await tx
        .select({ packageId: sql<string>`${packagePorts.packageId}`, port: packagePorts.port, ip: agents.ip })
        .from(packagePorts)
        .innerJoin(agents, eq(agents.id, packagePorts.agentId))
        .where(sql`${packagePorts.packageId} = ANY(${sql.param([...packageIds])}::text[])`)
        .orderBy(asc(packagePorts.port));
      for (const r of rows) {
        const list = out.get(r.packageId) ?? [];
        list.push({ port: r.port, ip: r.ip });
        out.set(r.packageId, list);
      }
      return out;
    },

    /** A package's hourly traffic, oldest first. */
    async findTrafficHours(packageId: string, tx: DbOrTx = db) {
      return tx
        .select()
        .from(packageTrafficHourly)
        .where(eq(packageTrafficHourly.packageId, packageId))
        .orderBy(asc(packageTrafficHourly.hour));
    },

    async findPackage(id: string, tx: DbOrTx = db): Promise<PackageRow | undefined> {
      return (await tx.select().from(portPackages).where(eq(portPackages.id, id)))[0];
    },

    async updatePackage(id: string, set: Partial<NewPackageRow>, tx: DbOrTx = db): Promise<PackageRow> {
      return (await tx.update(portPackages).set(set).where(eq(portPackages.id, id)).returning())[0]!;
    },

    async deletePorts(packageId: string, tx: Tx): Promise<void> {
      await tx.delete(packagePorts).where(eq(packagePorts.packageId, packageId));
    },

    /** The port of a package (by its rotation key) with its row locked, and the package's status and owner. */
    async lockPortByKey(
      port: number,
      apiKey: string,
      tx: Tx,
    ): Promise<{ packageId: string; userId: string; status: string; rotatedAt: Date | null } | undefined> {
      const rows = await tx
        .select({
          packageId: sql<string>`${packagePorts.packageId}`,
          userId: portPackages.userId,
          status: portPackages.status,
          rotatedAt: packagePorts.rotatedAt,
        })
        .from(packagePorts)
        .innerJoin(portPackages, eq(portPackages.id, packagePorts.packageId))
        .where(and(eq(packagePorts.port, port), eq(portPackages.apiKey, apiKey)))
        .for('update', { of: packagePorts });
      return rows[0];
    },

    /** Rotates a port: drops its sticky exit and bumps its sequence (the gateway re-chooses). */
    async rotatePort(packageId: string, port: number, at: Date, tx: Tx): Promise<void> {
      await tx
        .update(packagePorts)
        .set({ agentId: null, rotateSeq: sql`${packagePorts.rotateSeq} + 1`, rotatedAt: at })
        .where(and(eq(packagePorts.packageId, packageId), eq(packagePorts.port, port)));
    },

    /**
     * Suspends active packages that no longer serve at `at` (SQL `package_active`: past
     * `date_finish`) or at their volume (`package_over_volume`); returns how many. The gateway
     * does the same within seconds from its own counters; this is the backstop.
     */
    async suspendDue(at: Date, tx: DbOrTx = db): Promise<number> {
      const p = portPackages;
      const isActiveAt = sql`package_active(${p.status}, ${p.dateFinish}, ${at.toISOString()}::timestamptz)`;
      const isOverVolume = sql`package_over_volume(${p.trafficType}, ${p.trafficGb}, ${p.upload} + ${p.download})`;
      const rows = await tx
        .update(p)
        .set({
          status: 'suspend',
          suspendReason: sql`CASE WHEN ${isActiveAt} THEN 'volume' ELSE 'expired' END`,
        })
        .where(and(eq(p.status, 'active'), sql`(NOT ${isActiveAt} OR ${isOverVolume})`))
        .returning({ id: p.id });
      return rows.length;
    },

    /**
     * Asks the package's node for its exact counters: stamps `flush_requested_at` (the trigger
     * NOTIFYs `package_flush`) and returns the stamp as the database wrote it (microseconds kept).
     */
    async requestFlush(id: string, tx: DbOrTx = db): Promise<string> {
      const rows = await tx
        .update(portPackages)
        .set({ flushRequestedAt: sql`clock_timestamp()` })
        .where(eq(portPackages.id, id))
        .returning({ at: sql<string>`${portPackages.flushRequestedAt}::text` });
      return rows[0]?.at ?? 'epoch';
    },

    /**
     * Withdraws a refused refund's request (`requestFlush`): the trigger NOTIFYs `package_flush`
     * again and the node, finding no request, lets the package relay again. Only this request's
     * stamp is cleared, never a later refund's.
     */
    async clearFlush(id: string, requestedAt: string, tx: DbOrTx = db): Promise<void> {
      await tx
        .update(portPackages)
        .set({ flushRequestedAt: null })
        .where(
          and(eq(portPackages.id, id), sql`${portPackages.flushRequestedAt} = ${requestedAt}::timestamptz`),
        );
    },

    /**
     * Whether the node has flushed the package's counters since `requestedAt`, and whether the node
     * has been silent (no heartbeat) for `silentMs`, both by the database's clock.
     */
    async findFlushState(
      id: string,
      requestedAt: string,
      silentMs: number,
      tx: DbOrTx = db,
    ): Promise<{ isFlushed: boolean; isNodeSilent: boolean } | undefined> {
      const rows = await tx
        .select({
          isFlushed: sql<boolean>`coalesce(${portPackages.statsFlushedAt} >= ${requestedAt}::timestamptz, false)`,
          isNodeSilent: sql<boolean>`coalesce(${gatewayNodes.lastHeartbeat} < clock_timestamp() - make_interval(secs => ${silentMs / 1000}), true)`,
        })
        .from(portPackages)
        .leftJoin(gatewayNodes, eq(gatewayNodes.id, portPackages.nodeId))
        .where(eq(portPackages.id, id));
      return rows[0];
    },

    /** Countries with exits now, by count. */
    async countExitsByCountry(tx: DbOrTx = db): Promise<{ name: string; count: number }[]> {
      return tx
        .select({ name: agents.cc, count: sql<number>`count(*)::int` })
        .from(agents)
        .where(and(exitCondition({ country: '', state: '', city: '', connectionType: 'both' })))
        .groupBy(agents.cc)
        .orderBy(desc(sql`count(*)`), asc(agents.cc));
    },

    /** States (the agents' region) of a country with exits now, or cities of a country and state. */
    async countExitsBy(
      column: 'reg' | 'city',
      f: { country: string; state: string },
      tx: DbOrTx = db,
    ): Promise<{ name: string; count: number }[]> {
      const col = column === 'reg' ? agents.reg : agents.city;
      return tx
        .select({ name: col, count: sql<number>`count(*)::int` })
        .from(agents)
        .where(
          and(
            exitCondition({ country: f.country, state: f.state, city: '', connectionType: 'both' }),
            sql`${col} <> ''`,
          ),
        )
        .groupBy(col)
        .orderBy(asc(col));
    },
  };
}

/** The ports repository's functions. */
export type PortsRepository = ReturnType<typeof createPortsRepository>;
