/**
 * Test factories: rows of every table a test needs (accounts with a balance, gateway nodes,
 * agents, leases, port packages), inserted directly and consistently (a seeded balance has its
 * ledger row). Tests only; the apps never import this.
 */
import { randomBytes } from 'node:crypto';
import { type Cents, cents } from '@pm/money';
import type { DbHandle } from './client.ts';
import {
  accounts,
  agents,
  gatewayNodes,
  leases,
  leaseTrafficHourly,
  packagePorts,
  portPackages,
  txrecords,
} from './schema/index.ts';

let seq = 0;
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** A unique id for a test row, e.g. `user-3-a1b2c3`. */
export function newUserId(prefix = 'user'): string {
  return `${prefix}-${++seq}-${hex(3)}`;
}

export type AccountRow = typeof accounts.$inferSelect;
export type NodeRow = typeof gatewayNodes.$inferSelect;
export type AgentRow = typeof agents.$inferSelect;
export type LeaseRow = typeof leases.$inferSelect;
export type PackageRow = typeof portPackages.$inferSelect;

/**
 * Inserts an account; a starting `balanceC` comes with its one 'adjustment' ledger row, so the
 * books balance as if the ledger had credited it.
 */
export async function buildAccount(
  db: DbHandle,
  o: {
    userId?: string;
    email?: string;
    balanceC?: number;
    permissions?: string[];
    blocked?: boolean;
    /** Default true: a confirmed address, as every customer who may buy has. */
    emailVerified?: boolean;
  } = {},
): Promise<AccountRow> {
  const userId = o.userId ?? newUserId();
  const balanceC = cents(o.balanceC ?? 0);
  return db.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(accounts)
      .values({
        userId,
        email: o.email ?? `${userId}@example.test`,
        permissions: o.permissions ?? [],
        blocked: o.blocked ?? false,
        emailVerified: o.emailVerified ?? true,
        balanceC,
      })
      .returning();
    if (balanceC > 0) {
      await tx.insert(txrecords).values({
        userId,
        type: 'adjustment',
        memo: 'test seed',
        amtC: balanceC,
        balC: balanceC,
        idemKey: `seed:${userId}`,
      });
    }
    return row!;
  });
}

/**
 * Inserts a gateway node (SOCKS base port 10000, no-auth ports 20000-20009 unless given) as a
 * running node leaves it: `sparePorts` (default 1000) of its package range, lowest first, bound
 * and recorded as spares (`package_ports` rows without a package), which is what a purchase takes.
 */
export async function buildNode(
  db: DbHandle,
  overrides: Partial<typeof gatewayNodes.$inferInsert> & { sparePorts?: number } = {},
): Promise<NodeRow> {
  const { sparePorts = 1000, ...values } = overrides;
  const rows = await db.db
    .insert(gatewayNodes)
    .values({
      id: `node-${hex(3)}`,
      publicHost: 'gw.example.test',
      publicIp: '127.0.0.1',
      socksBasePort: 10000,
      authPortMin: 20000,
      authPortMax: 20009,
      ...values,
    })
    .returning();
  const node = rows[0]!;
  await buildSparePorts(db, node.id, { from: node.packagePortMin, count: sparePorts });
  return node;
}

/**
 * Records `count` ports from `from` on (clipped to the node's package range) as spares of the node,
 * bound and confirmed, as the node's spare pool writes them; ports already recorded are skipped.
 */
export async function buildSparePorts(
  db: DbHandle,
  nodeId: string,
  o: { from?: number; count: number },
): Promise<void> {
  if (o.count <= 0) return;
  await db.query(
    `INSERT INTO package_ports (node_id, port, bound_at)
     SELECT n.id, p, now() FROM gateway_nodes n,
       generate_series(GREATEST(COALESCE($2, n.package_port_min), n.package_port_min),
                       LEAST(COALESCE($2, n.package_port_min) + $3 - 1, n.package_port_max)) AS p
     WHERE n.id = $1
     ON CONFLICT (node_id, port) DO NOTHING`,
    [nodeId, o.from ?? null, o.count],
  );
}

/** Inserts an online agent in San Jose, US (prices come from the pricing rules); `nodeId` null means never connected. */
export async function buildAgent(
  db: DbHandle,
  overrides: Partial<typeof agents.$inferInsert> = {},
): Promise<AgentRow> {
  const rows = await db.db
    .insert(agents)
    .values({
      id: `ag-${hex(4)}`,
      keyHash: hex(32),
      ip: '192.0.2.10',
      cc: 'US',
      reg: 'CA',
      city: 'San Jose',
      zip: '95131',
      isp: 'Example ISP',
      online: true,
      ...overrides,
    })
    .returning();
  return rows[0]!;
}

/**
 * Inserts an active shared lease of `agentId` (served by the agent's node unless `nodeId` is
 * given), one hour long, with fresh SOCKS credentials. Leases a service should create (price,
 * info snapshot, overselling checks) belong to the lease service, not here.
 */
export async function buildLease(
  db: DbHandle,
  agentId: string,
  overrides: Partial<typeof leases.$inferInsert> & { untilMs?: number; purchasePriceC?: Cents } = {},
): Promise<LeaseRow> {
  const { untilMs, ...values } = overrides;
  const nodeId =
    values.nodeId ??
    (await db.query<{ node_id: string | null }>('SELECT node_id FROM agents WHERE id = $1', [agentId]))[0]
      ?.node_id;
  const rows = await db.db
    .insert(leases)
    .values({
      id: `${hex(2)}-${String(++seq % 10000).padStart(4, '0')}`,
      userId: newUserId(),
      agentId,
      exc: false,
      until: new Date(untilMs ?? Date.now() + 3600_000),
      socksUser: hex(5),
      socksPwd: hex(8),
      nodeId: nodeId ?? null,
      ...values,
    })
    .returning();
  return rows[0]!;
}

/**
 * Inserts an active one-day port package on `nodeId` (US, 1 GB, login and password access, a
 * 5-minute rotation timer) with its `ports`, not yet bound, as the server's ports sale writes them.
 * One transaction, so a gateway reloading on the package's NOTIFY sees the package and its ports.
 */
export async function buildPackage(
  db: DbHandle,
  nodeId: string,
  ports: number[],
  overrides: Partial<typeof portPackages.$inferInsert> = {},
): Promise<PackageRow> {
  const startMs = Date.now();
  return db.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(portPackages)
      .values({
        id: `pp-${hex(6)}`,
        userId: newUserId(),
        priceC: cents(390),
        periodDays: 1,
        trafficType: 'limit',
        trafficGb: 1,
        country: 'US',
        connectionType: 'both',
        switchType: 'timer',
        switchTimer: 5,
        apiKey: hex(8),
        accessType: 'auth',
        authLogin: `u${hex(5)}`,
        authPassword: hex(8),
        nodeId,
        portAmount: ports.length,
        status: 'active',
        dateStart: new Date(startMs),
        dateFinish: new Date(startMs + 86_400_000),
        ...overrides,
      })
      .returning();
    if (ports.length > 0) {
      await tx.insert(packagePorts).values(ports.map((port) => ({ packageId: row!.id, nodeId, port })));
    }
    return row!;
  });
}

/**
 * Adds a lease's traffic for one UTC hour (the row the gateway's meter writes; `hour` is truncated
 * to the hour): requests, failures and the agent-caused part of them. The lease's totals are not
 * touched; tests of the totals set them themselves.
 */
export async function buildTrafficHour(
  db: DbHandle,
  leaseId: string,
  t: { hour: Date; reqs: number; fails?: number; agentFails?: number },
): Promise<void> {
  const hour = new Date(Math.floor(t.hour.getTime() / 3600_000) * 3600_000);
  const fails = t.fails ?? t.agentFails ?? 0;
  await db.db
    .insert(leaseTrafficHourly)
    .values({ leaseId, hour, reqs: t.reqs, fails, agentFails: t.agentFails ?? 0 })
    .onConflictDoUpdate({
      target: [leaseTrafficHourly.leaseId, leaseTrafficHourly.hour],
      set: { reqs: t.reqs, fails, agentFails: t.agentFails ?? 0 },
    });
}
