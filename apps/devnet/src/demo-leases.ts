/**
 * Shared leases other (demo) customers hold on a few demo agents from devnet start, so the shop
 * shows "1 of 4" and "2 of 4" and offers no Private lease for them. They are made by the server's
 * services as a purchase makes them (the agent row locked, no private lease on it, at most four
 * shared ones, the agent sold), only free and started a few hours back; the gateway picks their
 * credentials up through its lease NOTIFY.
 */
import { randomBytes } from 'node:crypto';
import { AppError, LEASE_DURATION_MS } from '@pm/contracts';
import type { DbHandle } from '@pm/db';
import { ensureUser } from '@pm/identity';
import { createServices, type Services } from '@pm/server';
import type { DemoIdentity } from './demo-identities.ts';

/** The customers who hold the demo's shared leases; nobody signs in as them (random passwords). */
export const DEMO_OTHER_CUSTOMER_EMAILS = ['other1@example.com', 'other2@example.com'] as const;

const HOUR_MS = 3_600_000;

/** Creates the other customers' sign-in users and market accounts when missing; returns their ids. */
export async function ensureOtherCustomers(db: DbHandle, services: Services = createServices(db)) {
  const ids: string[] = [];
  for (const email of DEMO_OTHER_CUSTOMER_EMAILS) {
    const password = randomBytes(18).toString('base64url');
    const user = await ensureUser(db, { email, password, emailVerified: true });
    await services.accounts.ensureAccount({
      userId: user.id,
      email,
      refcode: user.referralCode,
      emailVerified: true,
    });
    ids.push(user.id);
  }
  return ids;
}

/** The agents a customer holds a running lease on. */
async function heldAgents(services: Services, userId: string): Promise<Set<string>> {
  const held = new Set<string>();
  for (let cursor = 0; ; ) {
    const page = await services.leases.listActiveLeases(userId, { cursor, limit: 100 });
    for (const lease of page.leases) held.add(lease.agentId);
    if (page.cursor === 0) return held;
    cursor = page.cursor;
  }
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
  const services = createServices(db);
  const customers = await ensureOtherCustomers(db, services);
  const holdings = await Promise.all(customers.map((id) => heldAgents(services, id)));
  let created = 0;
  for (const d of wanted) {
    for (const [k, userId] of customers.slice(0, d.sharers).entries()) {
      if (holdings[k]!.has(d.id)) continue;
      // Bought a few hours apart, so the leases end at different times.
      const startMs = now() - (2 + 7 * k) * HOUR_MS;
      const lease = { userId, agentId: d.id, exc: false, startMs, untilMs: startMs + LEASE_DURATION_MS };
      try {
        await db.db.transaction(async (tx) => {
          await services.leases.insertLease(lease, tx);
          await services.agents.markSold(d.id, tx);
        });
        created++;
      } catch (e) {
        // Held privately, full, or never connected to a node: nothing more to sell on it.
        if (e instanceof AppError && e.code === 'CONFLICT') break;
        throw e;
      }
    }
  }
  return created;
}
