import { randomBytes } from 'node:crypto';
import type { DbHandle } from '@pm/db';
import { hashAgentKey } from './agent-registry.ts';

/** What an operator hands to a device: the agent's id and its key (the key is shown once, stored hashed). */
export interface AgentCredentials {
  id: string;
  key: string;
}

const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{2,63}$/;

/** Why `id` cannot name an agent, or null. */
export function agentIdProblem(id: string): string | null {
  return AGENT_ID.test(id)
    ? null
    : 'an agent id is 3-64 letters, digits, "-" or "_", starting with a letter or digit';
}

/**
 * Registers a new agent: a random 192-bit key, stored as its sha256 (the registry's `authenticate`
 * compares the hash). The agent shows up in the shop once it connects and its node locates it.
 * Throws when the id is taken.
 */
export async function registerAgent(
  db: DbHandle,
  id = `ag-${randomBytes(4).toString('hex')}`,
): Promise<AgentCredentials> {
  const problem = agentIdProblem(id);
  if (problem) throw new Error(problem);
  const key = randomBytes(24).toString('hex');
  const rows = await db.query<{ id: string }>(
    'INSERT INTO agents (id, key_hash) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING id',
    [id, hashAgentKey(key)],
  );
  if (rows.length === 0) throw new Error(`agent ${id} already exists`);
  return { id, key };
}

/**
 * Gives an agent a new key (a device lost or leaked it): the old key stops working at the agent's
 * next connection. Throws when no such agent exists.
 */
export async function rotateAgentKey(db: DbHandle, id: string): Promise<AgentCredentials> {
  const key = randomBytes(24).toString('hex');
  const rows = await db.query<{ id: string }>('UPDATE agents SET key_hash = $2 WHERE id = $1 RETURNING id', [
    id,
    hashAgentKey(key),
  ]);
  if (rows.length === 0) throw new Error(`no agent ${id}`);
  return { id, key };
}
