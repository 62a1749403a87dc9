/**
 * Test helpers: rows of the network schema for the gateway tests, in the gateway's shapes, written
 * by the factories of `@pm/db/testing` (nodes, agents, leases, port packages).
 */
import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import type { DbHandle } from '@pm/db';
import { buildAgent, buildLease, buildNode, buildPackage } from '@pm/db/testing';
import { freePort } from '../free-port.ts';

/** A node `id` with no spare ports: the gateway tests bind the ports they use themselves. */
export async function insertNode(
  db: DbHandle,
  id: string,
  values: { publicHost?: string; publicIp?: string; socksBasePort?: number } = {},
): Promise<void> {
  await buildNode(db, {
    id,
    publicHost: values.publicHost ?? `${id}.example.test`,
    publicIp: values.publicIp ?? '127.0.0.1',
    socksBasePort: values.socksBasePort ?? 10000,
    sparePorts: 0,
  });
}

/**
 * Inserts an agent attached to `nodeId` and returns its id and key (the row keeps the key's hash).
 * Offline until it dials: presence is the gateway's to set.
 */
export async function insertAgent(db: DbHandle, nodeId: string | null): Promise<{ id: string; key: string }> {
  const key = randomBytes(24).toString('base64url');
  const keyHash = createHash('sha256').update(key).digest('hex');
  const row = await buildAgent(db, { keyHash, nodeId, online: false });
  return { id: row.id, key };
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
    conn?: 'wifi' | 'mobile' | 'both';
    gb?: number;
    ports?: number;
    timer?: number | null;
    userId?: string;
  } = {},
): Promise<TestPackage> {
  const ports: number[] = [];
  for (let i = 0; i < (o.ports ?? 1); i++) ports.push(await freePortPair());
  const row = await buildPackage(db, nodeId, ports, {
    userId: o.userId ?? 'user-1',
    trafficGb: o.gb ?? 1,
    state: o.state ?? 'New York',
    city: o.city ?? '',
    connectionType: o.conn ?? 'both',
    switchType: o.timer === null ? 'api' : 'timer',
    switchTimer: o.timer === null ? null : (o.timer ?? 5),
  });
  return { id: row.id, login: row.authLogin, password: row.authPassword, ports };
}
