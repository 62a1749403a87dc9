/**
 * Test helpers: rows of the network schema for the gateway tests. Leases come from the `buildLease`
 * factory of `@pm/db/testing`; nodes, agents with their keys and port packages are still written
 * here with plain SQL (their factories do not yet take the gateway's shapes).
 */
import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import type { DbHandle } from '@pm/db';
import { buildLease } from '@pm/db/testing';
import { freePort } from '../free-port.ts';

export async function insertNode(
  db: DbHandle,
  id: string,
  values: { publicHost?: string; publicIp?: string; socksBasePort?: number } = {},
): Promise<void> {
  await db.query(
    'INSERT INTO gateway_nodes (id, public_host, public_ip, socks_base_port) VALUES ($1, $2, $3, $4)',
    [
      id,
      values.publicHost ?? `${id}.example.test`,
      values.publicIp ?? '127.0.0.1',
      values.socksBasePort ?? 10000,
    ],
  );
}

/** Inserts an agent attached to `nodeId` and returns its id and key. */
export async function insertAgent(db: DbHandle, nodeId: string | null): Promise<{ id: string; key: string }> {
  const id = `ag-${randomBytes(4).toString('hex')}`;
  const key = randomBytes(24).toString('base64url');
  const keyHash = createHash('sha256').update(key).digest('hex');
  await db.query('INSERT INTO agents (id, key_hash, node_id) VALUES ($1, $2, $3)', [id, keyHash, nodeId]);
  return { id, key };
}

export interface TestLease {
  id: string;
  user: string;
  pwd: string;
}

/** An active lease on `agentId` served by `nodeId`: the `buildLease` factory of `@pm/db/testing`. */
export async function insertLease(
  db: DbHandle,
  agentId: string,
  nodeId: string,
  values: { untilMs?: number; authPort?: number; whitelist?: string[]; exc?: boolean; userId?: string } = {},
): Promise<TestLease> {
  const row = await buildLease(db, agentId, {
    nodeId,
    userId: values.userId ?? 'user-1',
    exc: values.exc ?? false,
    untilMs: values.untilMs,
    authPort: values.authPort ?? null,
    whitelist: values.whitelist ?? [],
  });
  return { id: row.id, user: row.socksUser, pwd: row.socksPwd };
}

/** The HTTP twins of the test's package ports: port + 100 (production: + 20000). */
export const HTTP_OFFSET = 100;

/** A free port whose HTTP twin is free too. */
export async function freePortPair(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const p = await freePort();
    if (p + HTTP_OFFSET > 65535) continue;
    const ok = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once('error', () => resolve(false));
      probe.listen(p + HTTP_OFFSET, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (ok) return p;
  }
  throw new Error('no free port pair');
}

export interface TestPackage {
  id: string;
  login: string;
  password: string;
  ports: number[];
}

/** A package as the server's ports module writes it (one or more ports on `nodeId`). */
export async function insertPackage(
  db: DbHandle,
  nodeId: string,
  o: {
    state?: string;
    city?: string;
    conn?: string;
    gb?: number;
    ports?: number;
    timer?: number | null;
    userId?: string;
  } = {},
): Promise<TestPackage> {
  const id = `pp-${randomBytes(6).toString('hex')}`;
  const login = `u${randomBytes(5).toString('hex')}`;
  const password = randomBytes(8).toString('hex');
  const ports: number[] = [];
  for (let i = 0; i < (o.ports ?? 1); i++) ports.push(await freePortPair());
  // One statement, so the package and its ports commit together, as the server's sale does: the
  // gateway's reload on the package's NOTIFY sees both.
  await db.query(
    `WITH p AS (
       INSERT INTO port_packages (id, user_id, price_c, period_days, traffic_type, traffic_gb, country, state, city,
         connection_type, switch_type, switch_timer, api_key, access_type, auth_login, auth_password, node_id,
         port_amount, status, date_start, date_finish)
       VALUES ($1, $14, 390, 1, 'limit', $2, 'US', $3, $4, $5, $6, $7, $8, 'auth', $9, $10, $11, $12, 'active',
         now(), now() + interval '1 day')
       RETURNING id, node_id)
     INSERT INTO package_ports (package_id, node_id, port) SELECT p.id, p.node_id, unnest($13::int[]) FROM p`,
    [
      id,
      o.gb ?? 1,
      o.state ?? 'New York',
      o.city ?? '',
      o.conn ?? 'both',
      o.timer === null ? 'api' : 'timer',
      o.timer === null ? null : (o.timer ?? 5),
      randomBytes(8).toString('hex'),
      login,
      password,
      nodeId,
      o.ports ?? 1,
      ports,
      o.userId ?? 'user-1',
    ],
  );
  return { id, login, password, ports };
}
