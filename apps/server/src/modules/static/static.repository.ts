import { agents, type Db, type DbOrTx } from '@pm/db';
import { and, asc, count, eq, ilike, like, type SQL, sql } from 'drizzle-orm';
import { noActiveLeaseOn } from '../leases/leases.exposed.repository.ts';

export type StaticAgentRow = typeof agents.$inferSelect;

/** The static shop's filter: a country and optional conn, ISP and city substrings, IP prefix. */
export interface StaticFilter {
  cc: string;
  conn?: 'wifi' | 'cell' | undefined;
  isp?: string | undefined;
  city?: string | undefined;
  ip?: string | undefined;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * On sale in the static shop at `atMs` (the service's clock): marked static, online, on a node, and
 * no lease active then (static leases are private). Counted from the leases with the one definition
 * (the leases module's exposed join), not the trigger's counters, which keep a lapsed lease until
 * `leases.expire` ends it; the static list is small.
 */
const staticOnSale = (atMs: number) =>
  sql`${agents.isStatic} AND ${agents.online} AND ${agents.nodeId} IS NOT NULL AND ${noActiveLeaseOn(agents.id, atMs)}`;

/** Data access of the static shop (the `agents` rows the operator marked static). */
export function createStaticRepository(db: Db) {
  function where(f: StaticFilter, atMs: number): SQL {
    const parts: (SQL | undefined)[] = [staticOnSale(atMs), eq(agents.cc, f.cc)];
    if (f.conn) parts.push(eq(agents.conn, f.conn));
    if (f.isp?.trim()) parts.push(ilike(agents.isp, `%${escapeLike(f.isp.trim())}%`));
    if (f.city?.trim()) parts.push(ilike(agents.city, `%${escapeLike(f.city.trim())}%`));
    if (f.ip?.trim()) parts.push(like(agents.ip, `${escapeLike(f.ip.trim())}%`));
    return and(...parts)!;
  }

  return {
    /** A page of static agents on sale at `page.atMs`, by city then IP, and how many match. */
    async findPage(
      f: StaticFilter,
      page: { offset: number; limit: number; atMs: number },
      tx: DbOrTx = db,
    ): Promise<{ rows: StaticAgentRow[]; total: number }> {
      const rows = await tx
        .select()
        .from(agents)
        .where(where(f, page.atMs))
        .orderBy(asc(agents.city), asc(agents.ip), asc(agents.id))
        .offset(page.offset)
        .limit(page.limit);
      const [total] = await tx.select({ n: count() }).from(agents).where(where(f, page.atMs));
      return { rows, total: total?.n ?? 0 };
    },
  };
}
