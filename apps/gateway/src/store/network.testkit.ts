/** Test helpers: rows of the network schema written with plain SQL (gateway tests only). */
import { createHash, randomBytes } from 'node:crypto';
import type { DbHandle } from '@pm/db';

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

let seq = 0;

/** Inserts an active lease on `agentId` served by `nodeId`. */
export async function insertLease(
  db: DbHandle,
  agentId: string,
  nodeId: string,
  values: { untilMs?: number; authPort?: number; whitelist?: string[]; exc?: boolean; userId?: string } = {},
): Promise<TestLease> {
  seq = (seq + 1) % 10000;
  const id = `${randomBytes(2).toString('hex')}-${String(seq).padStart(4, '0')}`;
  const user = randomBytes(5).toString('hex');
  const pwd = randomBytes(8).toString('hex');
  await db.query(
    `INSERT INTO leases (id, user_id, agent_id, exc, until, socks_user, socks_pwd, node_id, auth_port, whitelist)
     VALUES ($1, $10, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      id,
      agentId,
      values.exc ?? false,
      new Date(values.untilMs ?? Date.now() + 3600_000),
      user,
      pwd,
      nodeId,
      values.authPort ?? null,
      values.whitelist ?? [],
      values.userId ?? 'user-1',
    ],
  );
  return { id, user, pwd };
}

/** Polls `check` every 25 ms until it returns true or `timeoutMs` passes; returns the time it took. */
export async function waitFor(check: () => boolean, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return Date.now() - started;
}
