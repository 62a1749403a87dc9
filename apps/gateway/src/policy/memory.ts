/**
 * In-memory implementations of the gateway seam (LeaseDirectory, LeaseMeter, AgentRegistry)
 * for tests and the standalone benchmark gateway.
 */
import type { AgentHello, AgentRegistry, LeaseDirectory, LeaseEntry, LeaseMeter } from './types.ts';
import { createWhitelistMatcher } from './whitelist.ts';

export interface MemoryDirectory extends LeaseDirectory {
  /** Adds or replaces a lease; a replaced lease is revoked first (its open connections end). */
  upsert(entry: LeaseEntry): void;
  /** Removes a lease (ended or refunded) and revokes it. */
  remove(leaseId: string): void;
  entries(): LeaseEntry[];
}

/** A LeaseDirectory over a plain list of entries, with the same revocation events as the real one. */
export function createMemoryDirectory(
  initial: LeaseEntry[] = [],
  now: () => number = Date.now,
): MemoryDirectory {
  const byId = new Map<string, { entry: LeaseEntry; matches: (ip: string) => boolean }>();
  const revokedListeners = new Set<(leaseId: string) => void>();
  const portListeners = new Set<() => void>();
  const portsKey = () => JSON.stringify(directory.authPorts());
  const put = (entry: LeaseEntry) =>
    byId.set(entry.leaseId, { entry, matches: createWhitelistMatcher(entry.whitelist) });
  for (const e of initial) put(e);

  const directory: MemoryDirectory = {
    findByCredentials(user, pwd) {
      for (const { entry } of byId.values()) {
        if (entry.user === user && entry.pwd === pwd && entry.untilMs > now()) return entry;
      }
      return undefined;
    },
    findByAuthPort(port, sourceIp) {
      for (const { entry, matches } of byId.values()) {
        if (entry.authPort === port && entry.untilMs > now() && matches(sourceIp)) return entry;
      }
      return undefined;
    },
    credentialsOwner(user, port) {
      if (port !== undefined) return undefined;
      for (const { entry } of byId.values()) if (entry.user === user) return entry.leaseId;
      return undefined;
    },
    authPorts() {
      const ports: number[] = [];
      for (const { entry } of byId.values()) if (entry.authPort !== null) ports.push(entry.authPort);
      return ports.sort((a, b) => a - b);
    },
    onRevoked(listener) {
      revokedListeners.add(listener);
      return () => revokedListeners.delete(listener);
    },
    onAuthPortsChanged(listener) {
      portListeners.add(listener);
      return () => portListeners.delete(listener);
    },
    upsert(entry) {
      const before = portsKey();
      const existed = byId.has(entry.leaseId);
      put(entry);
      if (existed) for (const l of revokedListeners) l(entry.leaseId);
      if (portsKey() !== before) for (const l of portListeners) l();
    },
    remove(leaseId) {
      const before = portsKey();
      if (!byId.delete(leaseId)) return;
      for (const l of revokedListeners) l(leaseId);
      if (portsKey() !== before) for (const l of portListeners) l();
    },
    entries: () => [...byId.values()].map((v) => v.entry),
  };
  return directory;
}

export interface LeaseCounters {
  reqs: number;
  fails: number;
  /** The failures the agent is responsible for (part of `fails`). */
  agentFails: number;
  /** Customer-to-proxy bytes. */
  up: number;
  /** Proxy-to-customer bytes. */
  down: number;
}

export interface MemoryMeter extends LeaseMeter {
  /** Counters of one lease (zeros when nothing was recorded). */
  get(leaseId: string): LeaseCounters;
  /** Refused credentials counted for one lease (kept apart from its counters). */
  authFails(leaseId: string): number;
  all(): Map<string, LeaseCounters>;
}

/** A LeaseMeter that just adds up, exposing its counters. */
export function createMemoryMeter(): MemoryMeter {
  const counters = new Map<string, LeaseCounters>();
  const authFails = new Map<string, number>();
  const row = (id: string) => {
    let c = counters.get(id);
    if (!c) {
      c = { reqs: 0, fails: 0, agentFails: 0, up: 0, down: 0 };
      counters.set(id, c);
    }
    return c;
  };
  return {
    countRequest(leaseId, result) {
      const c = row(leaseId);
      c.reqs++;
      if (result !== 'ok') c.fails++;
      if (result === 'agent') c.agentFails++;
    },
    addBytes(leaseId, up, down) {
      const c = row(leaseId);
      c.up += up;
      c.down += down;
    },
    countFailureAfterSuccess(leaseId) {
      const c = row(leaseId);
      c.fails++;
      c.agentFails++;
    },
    countAuthFailure(leaseId) {
      authFails.set(leaseId, (authFails.get(leaseId) ?? 0) + 1);
    },
    authFails: (leaseId) => authFails.get(leaseId) ?? 0,
    get: (leaseId) => ({
      ...(counters.get(leaseId) ?? { reqs: 0, fails: 0, agentFails: 0, up: 0, down: 0 }),
    }),
    all: () => new Map([...counters].map(([k, v]) => [k, { ...v }])),
  };
}

export interface MemoryRegistry extends AgentRegistry {
  /** Agents currently connected, with their last HELLO. */
  online(): Map<string, AgentHello>;
  /** Every connected/disconnected call, in order. */
  events: { kind: 'connected' | 'disconnected'; agentId: string }[];
}

/** An AgentRegistry over a fixed map of key -> agent id. */
export function createMemoryRegistry(keys: Record<string, string>): MemoryRegistry {
  const online = new Map<string, AgentHello>();
  const events: MemoryRegistry['events'] = [];
  return {
    authenticate: async (key) => (Object.hasOwn(keys, key) ? keys[key] : undefined),
    connected(agentId, hello) {
      online.set(agentId, hello);
      events.push({ kind: 'connected', agentId });
    },
    disconnected(agentId) {
      online.delete(agentId);
      events.push({ kind: 'disconnected', agentId });
    },
    online: () => new Map(online),
    events,
  };
}
