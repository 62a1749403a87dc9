import { timingSafeEqual } from 'node:crypto';
import { type BlockList, isIPv4 } from 'node:net';
import type { DbHandle } from '@pm/db';
import type { LeaseDirectory, LeaseEntry } from '../policy/types.ts';
import { readStoredWhitelist } from '../policy/whitelist.ts';

export interface PgLeaseDirectoryOptions {
  db: DbHandle;
  /** This gateway node's id (gateway_nodes.id). */
  nodeId: string;
  /** Full reload period; notifications cover the time between. Default 30 s. */
  reloadMs?: number;
  /** Period of the in-memory sweep that revokes leases past their end time. Default 250 ms. */
  sweepMs?: number;
  /** A database call that takes longer is abandoned (the last known state keeps serving). Default 10 s. */
  queryTimeoutMs?: number;
  now?: () => number;
  onError?: (err: unknown) => void;
}

export interface PgLeaseDirectory extends LeaseDirectory {
  /** Resolves after the first successful load. */
  ready: Promise<void>;
  /** Reloads every lease of this node now. */
  reload(): Promise<void>;
  /** Leases currently known (for health and metrics). */
  size(): number;
  /** Whether a private lease (or a static one) holds this agent now: no package goes out through it. */
  isPrivateExit(agentId: string): boolean;
  /** Called with an agent a private lease has just taken (package connections through it must end). */
  onPrivateExit(listener: (agentId: string) => void): () => void;
  close(): Promise<void>;
}

interface Known {
  entry: LeaseEntry;
  allowed: BlockList;
  /** Whitelist entries that open nothing (malformed, or wider than /24). */
  dropped: string[];
  pwd: Buffer;
}

interface LeaseDbRow {
  id: string;
  agent_id: string;
  socks_user: string;
  socks_pwd: string;
  whitelist: string[];
  auth_port: number | null;
  until_ms: string | number;
  exc: boolean;
}

// An agent on this node serves its leases here; a lease whose node is this one keeps its no-auth port here.
// A blocked customer's leases are left out (blocking raises lease_changed for each of them).
// Active at $2, the directory's injected clock (not the database's now()), so a test moves time.
const SELECT_LEASES = `
  SELECT l.id, l.agent_id, l.socks_user, l.socks_pwd, l.whitelist, l.exc,
         CASE WHEN l.node_id = $1 THEN l.auth_port END AS auth_port,
         floor(extract(epoch FROM l.until) * 1000)::bigint AS until_ms
  FROM leases l JOIN agents a ON a.id = l.agent_id
  WHERE lease_active(l.ended_at, l.until, $2) AND (a.node_id = $1 OR l.node_id = $1)
    AND NOT EXISTS (SELECT 1 FROM accounts ac WHERE ac.user_id = l.user_id AND ac.blocked)`;

function toKnown(row: LeaseDbRow): Known {
  const whitelist = [...row.whitelist];
  return {
    entry: Object.freeze({
      leaseId: row.id,
      agentId: row.agent_id,
      user: row.socks_user,
      pwd: row.socks_pwd,
      whitelist,
      authPort: row.auth_port,
      untilMs: Number(row.until_ms),
      exclusive: row.exc,
    }),
    ...readStoredWhitelist(whitelist),
    pwd: Buffer.from(row.socks_pwd),
  };
}

/** Whether the data path must drop what it holds for the lease (credentials, whitelist, port, agent). */
function isRevoking(before: LeaseEntry, after: LeaseEntry): boolean {
  return (
    before.user !== after.user ||
    before.pwd !== after.pwd ||
    before.agentId !== after.agentId ||
    before.authPort !== after.authPort ||
    before.whitelist.join(',') !== after.whitelist.join(',')
  );
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`database call timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Source address as IPv4 when it is one (also `::ffff:a.b.c.d`), else undefined. */
function sourceIpv4(ip: string): string | undefined {
  if (isIPv4(ip)) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  return mapped && isIPv4(mapped) ? mapped : undefined;
}

/**
 * The gateway's view of the active leases of this node, held in memory: a full load at start, then
 * `LISTEN lease_changed` for incremental reloads (payload = lease id; '' = everything) and a periodic
 * full reload. Lookups never touch the database, so known leases keep working while it is down.
 */
export function createPgLeaseDirectory(options: PgLeaseDirectoryOptions): PgLeaseDirectory {
  const { db, nodeId } = options;
  const now = options.now ?? Date.now;
  const queryTimeoutMs = options.queryTimeoutMs ?? 10_000;
  const onError = options.onError ?? (() => {});
  const byId = new Map<string, Known>();
  const byUser = new Map<string, Known>();
  const byPort = new Map<number, Known>();
  const revokedListeners = new Set<(leaseId: string) => void>();
  const portListeners = new Set<() => void>();
  /** Private leases per agent, and who hears of an agent a private lease takes. */
  const privateLeases = new Map<string, number>();
  const privateListeners = new Set<(agentId: string) => void>();
  let closed = false;
  let chain: Promise<void> = Promise.resolve();
  let pendingIds = new Set<string>();
  let isFullPending = false;
  let flushScheduled = false;
  const loggedRows = new Set<string>();

  const emitTo = (listeners: Set<(id: string) => void>, id: string) => {
    for (const l of listeners) {
      try {
        l(id);
      } catch (e) {
        onError(e);
      }
    }
  };
  const emitRevoked = (id: string) => emitTo(revokedListeners, id);
  const emitPortsChanged = () => {
    for (const l of portListeners) {
      try {
        l();
      } catch (e) {
        onError(e);
      }
    }
  };

  const portsKey = () => [...byPort.keys()].sort((a, b) => a - b).join(',');

  function remove(id: string): void {
    const known = byId.get(id);
    if (!known) return;
    byId.delete(id);
    if (known.entry.exclusive) {
      const n = (privateLeases.get(known.entry.agentId) ?? 1) - 1;
      if (n > 0) privateLeases.set(known.entry.agentId, n);
      else privateLeases.delete(known.entry.agentId);
    }
    if (byUser.get(known.entry.user) === known) byUser.delete(known.entry.user);
    if (known.entry.authPort !== null && byPort.get(known.entry.authPort) === known)
      byPort.delete(known.entry.authPort);
  }

  function put(known: Known): void {
    byId.set(known.entry.leaseId, known);
    if (known.entry.exclusive) {
      privateLeases.set(known.entry.agentId, (privateLeases.get(known.entry.agentId) ?? 0) + 1);
    }
    byUser.set(known.entry.user, known);
    if (known.entry.authPort !== null) byPort.set(known.entry.authPort, known);
  }

  /**
   * A row as the data path holds it. One that cannot be read is skipped (its lease is not served)
   * and logged, and whitelist entries that open nothing are logged once: neither stops the reload.
   */
  function readRow(row: LeaseDbRow): Known | undefined {
    try {
      const known = toKnown(row);
      const note = `${row.id} ${known.dropped.join(',')}`;
      if (known.dropped.length > 0 && !loggedRows.has(note)) {
        if (loggedRows.size >= 10_000) loggedRows.clear();
        loggedRows.add(note);
        onError(
          new Error(
            `lease ${row.id}: whitelist entries ignored (not IPv4, or wider than /24): ${known.dropped.join(', ')}`,
          ),
        );
      }
      return known;
    } catch (e) {
      onError(new Error(`lease ${String(row.id)}: malformed row skipped: ${(e as Error).message}`));
      return undefined;
    }
  }

  /** Applies rows for `ids` (all leases when `ids` is undefined); ids without a row are gone. */
  function apply(rows: LeaseDbRow[], ids: Iterable<string> | undefined): void {
    const portsBefore = portsKey();
    const privateBefore = new Set(privateLeases.keys());
    const fresh = new Map<string, Known>();
    for (const row of rows) {
      const known = readRow(row);
      if (known) fresh.set(row.id, known);
    }
    const revoked: string[] = [];
    for (const id of ids ?? [...byId.keys()]) {
      if (!fresh.has(id) && byId.has(id)) {
        remove(id);
        revoked.push(id);
      }
    }
    for (const [id, known] of fresh) {
      const before = byId.get(id);
      if (before && isRevoking(before.entry, known.entry)) revoked.push(id);
      if (before) remove(id);
      put(known);
    }
    for (const id of revoked) emitRevoked(id);
    if (portsKey() !== portsBefore) emitPortsChanged();
    for (const agentId of privateLeases.keys()) {
      if (!privateBefore.has(agentId)) emitTo(privateListeners, agentId);
    }
  }

  async function loadAll(): Promise<void> {
    const rows = await withTimeout(
      db.query<LeaseDbRow>(SELECT_LEASES, [nodeId, new Date(now())]),
      queryTimeoutMs,
    );
    apply(rows, undefined);
  }

  async function loadSome(ids: string[]): Promise<void> {
    const rows = await withTimeout(
      db.query<LeaseDbRow>(`${SELECT_LEASES} AND l.id = ANY($3)`, [nodeId, new Date(now()), ids]),
      queryTimeoutMs,
    );
    apply(rows, ids);
  }

  /** Runs queued work one job at a time, so results apply in the order they were read. */
  function enqueue(job: () => Promise<void>): Promise<void> {
    const run = chain.then(async () => {
      if (closed) return;
      await job();
    });
    chain = run.catch(() => {});
    return run;
  }

  function scheduleFlush(): void {
    if (flushScheduled || closed) return;
    flushScheduled = true;
    // A short delay batches the notifications of one transaction (or a burst) into one query.
    setTimeout(() => {
      flushScheduled = false;
      const isFull = isFullPending;
      const ids = [...pendingIds];
      isFullPending = false;
      pendingIds = new Set();
      enqueue(() => (isFull ? loadAll() : loadSome(ids))).catch((e) => {
        // Keep serving what we know; retry this batch with the next notification or full reload.
        if (isFull) isFullPending = true;
        else for (const id of ids) pendingIds.add(id);
        onError(e);
      });
    }, 20).unref();
  }

  function onNotification(payload: string): void {
    if (payload === '') isFullPending = true;
    else pendingIds.add(payload);
    scheduleFlush();
  }

  const reload = () => enqueue(loadAll);

  let unlisten: (() => Promise<void>) | undefined;
  let resolveReady!: () => void;
  const ready = new Promise<void>((resolve) => {
    resolveReady = resolve;
  });

  async function start(): Promise<void> {
    // LISTEN first, so nothing committed after the initial load is missed.
    for (let delayMs = 250; !closed && !unlisten; delayMs = Math.min(delayMs * 2, 5000)) {
      try {
        const stop = await db.listen('lease_changed', onNotification);
        if (closed) await stop();
        else unlisten = stop;
      } catch (e) {
        onError(e);
        await new Promise((r) => setTimeout(r, delayMs));
      }
    }
    for (let delayMs = 250; !closed; delayMs = Math.min(delayMs * 2, 5000)) {
      try {
        await reload();
        resolveReady();
        return;
      } catch (e) {
        onError(e);
        await new Promise((r) => setTimeout(r, delayMs));
      }
    }
  }
  void start();

  const reloadTimer = setInterval(() => {
    reload().catch(onError);
  }, options.reloadMs ?? 30_000);
  reloadTimer.unref();

  // The end time is enforced in memory too: a lease past `until` is dropped without waiting for the database.
  const sweepTimer = setInterval(() => {
    const t = now();
    const expired = [...byId.values()].filter((k) => k.entry.untilMs <= t).map((k) => k.entry.leaseId);
    if (expired.length === 0) return;
    const portsBefore = portsKey();
    for (const id of expired) remove(id);
    for (const id of expired) emitRevoked(id);
    if (portsKey() !== portsBefore) emitPortsChanged();
  }, options.sweepMs ?? 250);
  sweepTimer.unref();

  return {
    ready,
    reload,
    size: () => byId.size,

    findByCredentials(user, pwd) {
      const known = byUser.get(user);
      if (!known || known.entry.untilMs <= now()) return undefined;
      const given = Buffer.from(pwd);
      if (given.length !== known.pwd.length || !timingSafeEqual(given, known.pwd)) return undefined;
      return known.entry;
    },

    findByAuthPort(port, sourceIp) {
      const known = byPort.get(port);
      if (!known || known.entry.untilMs <= now()) return undefined;
      const ip = sourceIpv4(sourceIp);
      if (!ip) return undefined;
      return known.allowed.check(ip, 'ipv4') ? known.entry : undefined;
    },

    authPorts: () => [...byPort.keys()].sort((a, b) => a - b),

    // A lease's credentials are taken on the shared ports only (its no-auth port takes a whitelist).
    credentialsOwner: (user, port) => (port === undefined ? byUser.get(user)?.entry.leaseId : undefined),

    isPrivateExit: (agentId) => privateLeases.has(agentId),

    onPrivateExit(listener) {
      privateListeners.add(listener);
      return () => privateListeners.delete(listener);
    },

    onRevoked(listener) {
      revokedListeners.add(listener);
      return () => revokedListeners.delete(listener);
    },

    onAuthPortsChanged(listener) {
      portListeners.add(listener);
      return () => portListeners.delete(listener);
    },

    async close() {
      closed = true;
      clearInterval(reloadTimer);
      clearInterval(sweepTimer);
      resolveReady();
      await unlisten?.().catch(() => {});
      await chain;
    },
  };
}
