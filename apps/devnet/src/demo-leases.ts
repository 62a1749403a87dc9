/**
 * Shared leases other (demo) customers hold on a few demo agents from devnet start, so the shop
 * shows "1 of 4" and "2 of 4" and offers no Private lease for them. The server's lease service is
 * being restructured and is not exported from `@pm/server` yet, so the rows are written here
 * through the `@pm/db` schema with the service's rules: the agent row locked, no private lease on
 * it, at most four shared ones, credentials the gateway picks up through its lease NOTIFY.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { LEASE_DURATION_MS, MAX_SHARED_LEASES, type TLeaseInfo } from '@pm/contracts';
import { accounts, agents, type DbHandle, leases, type Tx } from '@pm/db';
import { ensureUser } from '@pm/identity';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { DemoIdentity } from './demo-identities.ts';

/** The customers who hold the demo's shared leases; nobody signs in as them (random passwords). */
export const DEMO_OTHER_CUSTOMER_EMAILS = ['other1@example.com', 'other2@example.com'] as const;

const HOUR_MS = 3_600_000;
const LOWER = 'abcdefghijklmnopqrstuvwxyz0123456789';
const MIXED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const randomText = (alphabet: string, n: number) =>
  Array.from({ length: n }, () => alphabet[randomInt(alphabet.length)]).join('');

/** Creates the other customers' sign-in users and market accounts when missing; returns their ids. */
export async function ensureOtherCustomers(db: DbHandle): Promise<string[]> {
  const ids: string[] = [];
  for (const email of DEMO_OTHER_CUSTOMER_EMAILS) {
    const password = randomBytes(18).toString('base64url');
    const user = await ensureUser(db, { email, password, emailVerified: true });
    await db.db
      .insert(accounts)
      .values({ userId: user.id, email, refcode: user.referralCode })
      .onConflictDoNothing();
    ids.push(user.id);
  }
  return ids;
}

type AgentRow = typeof agents.$inferSelect;

function leaseInfo(agent: AgentRow, activeLeases: number): TLeaseInfo {
  return {
    ip: agent.ip,
    host: agent.host,
    loc: { cc: agent.cc, reg: agent.reg, city: agent.city, zip: agent.zip, isp: agent.isp, mob: agent.mob },
    score: agent.stars,
    leases: activeLeases,
    age: agent.firstSeen?.toISOString() ?? null,
    actv: agent.actv,
    conn: agent.conn,
    blacklists: [],
  };
}

/** Tops up one agent's shared leases to `holders`; returns how many were created. */
async function topUp(tx: Tx, agentId: string, holders: string[], nowMs: number): Promise<number> {
  const [agent] = await tx.select().from(agents).where(eq(agents.id, agentId)).for('update');
  // An agent that never dialed a node has no SOCKS address to sell yet.
  if (!agent?.nodeId) return 0;
  const active = await tx
    .select({ userId: leases.userId, exc: leases.exc })
    .from(leases)
    .where(and(eq(leases.agentId, agentId), isNull(leases.endedAt), gt(leases.until, sql`now()`)));
  if (active.some((l) => l.exc)) return 0;
  let count = active.length;
  let created = 0;
  let lastSaleMs = 0;
  for (const [k, userId] of holders.entries()) {
    if (count >= MAX_SHARED_LEASES) break;
    if (active.some((l) => l.userId === userId)) continue;
    // Bought a few hours apart, so the leases end at different times.
    const startMs = nowMs - (2 + 7 * k) * HOUR_MS;
    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = await tx
        .insert(leases)
        .values({
          id: `${randomText(LOWER, 4)}-${randomText('0123456789', 4)}`,
          userId,
          agentId,
          exc: false,
          start: new Date(startMs),
          until: new Date(startMs + LEASE_DURATION_MS),
          socksUser: randomText(LOWER, 10),
          socksPwd: randomText(MIXED, 16),
          nodeId: agent.nodeId,
          info: leaseInfo(agent, count),
        })
        .onConflictDoNothing()
        .returning({ id: leases.id });
      if (inserted.length > 0) {
        count++;
        created++;
        lastSaleMs = Math.max(lastSaleMs, startMs);
        break;
      }
    }
  }
  // A sale like the purchase's (`agents.markSold`): the agent is no longer New, and priced so.
  if (created > 0) {
    const soldAt = new Date(lastSaleMs);
    await tx
      .update(agents)
      .set({ lastSoldAt: sql`GREATEST(${agents.lastSoldAt}, ${soldAt.toISOString()}::timestamptz)` })
      .where(eq(agents.id, agentId));
  }
  return created;
}

/**
 * Gives each identity with `sharers > 0` that many active shared leases, one per other customer,
 * unless it already has them (restarts add nothing while the leases last) or a private lease holds
 * it. Run after the agents have dialed the gateway. Returns the number of leases created.
 */
export async function seedDemoSharedLeases(
  db: DbHandle,
  identities: readonly DemoIdentity[],
  now: () => number = Date.now,
): Promise<number> {
  const wanted = identities.filter((d) => d.sharers > 0);
  if (wanted.length === 0) return 0;
  const customers = await ensureOtherCustomers(db);
  let created = 0;
  for (const d of wanted) {
    const holders = customers.slice(0, d.sharers);
    created += await db.db.transaction((tx) => topUp(tx, d.id, holders, now()));
  }
  return created;
}
