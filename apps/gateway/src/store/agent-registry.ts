import { createHash } from 'node:crypto';
import { promises as dns } from 'node:dns';
import type { DbHandle } from '@pm/db';
import { type GeoLookup, isMobileIsp, noGeo } from '../geo/geo.ts';
import type { AgentHello, AgentRegistry } from '../policy/types.ts';
import { DEFAULT_PORTS } from '../port-plan.ts';

/** What customers are told about this node (gateway_nodes row). */
export interface GatewayNodeInfo {
  publicHost: string;
  publicIp: string;
  socksBasePort: number;
  authPortMin?: number;
  authPortMax?: number;
  /** The node's package range and the HTTP twin offset (default `DEFAULT_PORTS`): the server sells from it and shows the twins. */
  packagePortMin?: number;
  packagePortMax?: number;
  packageHttpOffset?: number;
}

export interface PgAgentRegistryOptions {
  db: DbHandle;
  nodeId: string;
  /** When given, the node row is created or updated at start (agents reference it). */
  node?: GatewayNodeInfo;
  geo?: GeoLookup;
  /** Reverse DNS of an agent's IP; `false` disables it. Default: the system resolver. */
  reverseDns?: ((ip: string) => Promise<string[]>) | false;
  dnsTimeoutMs?: number;
  /** Period of the node heartbeat and of `last_seen` for connected agents. Default 30 s. */
  heartbeatMs?: number;
  /** Delay before retrying writes that failed (database down). Default 1 s. */
  retryMs?: number;
  onError?: (err: unknown) => void;
}

export interface PgAgentRegistry extends AgentRegistry {
  /** Resolves once the node row is written and stale presence of this node is closed. */
  ready: Promise<void>;
  /** Resolves when every buffered agent update is written (tests, shutdown). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** sha256 (hex) of an agent key; keys are high-entropy random strings, so no slow hash is needed. */
export function hashAgentKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

interface Pending {
  online: boolean;
  hello: AgentHello | undefined;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Agent keys and the agents table. `connected`/`disconnected` only record the wish in memory; a
 * background writer applies the latest state per agent (so the data path never waits, and a flap
 * during a database outage ends in the right final state).
 */
export function createPgAgentRegistry(options: PgAgentRegistryOptions): PgAgentRegistry {
  const { db, nodeId } = options;
  const geo = options.geo ?? noGeo;
  const onError = options.onError ?? (() => {});
  const retryMs = options.retryMs ?? 1000;
  const dnsTimeoutMs = options.dnsTimeoutMs ?? 2000;
  const reverse =
    options.reverseDns === false ? undefined : (options.reverseDns ?? ((ip: string) => dns.reverse(ip)));
  /** Live tunnels per agent on this node: an agent that reconnects before the old tunnel closes stays online. */
  const tunnels = new Map<string, number>();
  const pending = new Map<string, Pending>();
  let closed = false;
  let writer: Promise<void> | undefined;
  let idleWaiters: (() => void)[] = [];

  async function prepare(): Promise<void> {
    const n = options.node;
    if (n) {
      const d = DEFAULT_PORTS;
      await db.query(
        `INSERT INTO gateway_nodes (id, public_host, public_ip, socks_base_port, auth_port_min, auth_port_max,
           package_port_min, package_port_max, package_http_offset)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (id) DO UPDATE SET public_host = $2, public_ip = $3, socks_base_port = $4,
           auth_port_min = $5, auth_port_max = $6, package_port_min = $7, package_port_max = $8,
           package_http_offset = $9, last_heartbeat = now()`,
        [
          nodeId,
          n.publicHost,
          n.publicIp,
          n.socksBasePort,
          n.authPortMin ?? 20000,
          n.authPortMax ?? 29999,
          n.packagePortMin ?? d.packagePortMin,
          n.packagePortMax ?? d.packagePortMax,
          n.packageHttpOffset ?? d.httpPortOffset,
        ],
      );
    }
    // A previous process of this node may have died with agents marked online: close them at their last sighting.
    await db.query(
      `UPDATE agent_presence p SET ended_at = GREATEST(p.started_at, LEAST(now(), COALESCE(a.last_seen, now())))
       FROM agents a WHERE a.id = p.agent_id AND p.node_id = $1 AND p.ended_at IS NULL`,
      [nodeId],
    );
    await db.query('UPDATE agents SET online = false WHERE node_id = $1 AND online', [nodeId]);
  }

  async function prepareWithRetry(): Promise<void> {
    while (!closed) {
      try {
        await prepare();
        return;
      } catch (e) {
        onError(e);
        await new Promise((r) => setTimeout(r, retryMs));
      }
    }
  }
  const ready = prepareWithRetry();

  async function writeOnline(agentId: string, hello: AgentHello): Promise<void> {
    const loc = geo.lookup(hello.ip);
    const mob = loc ? loc.mob || hello.conn === 'cell' || isMobileIsp(loc.isp) : hello.conn === 'cell';
    await db.query(
      `UPDATE agents SET node_id = $2, ip = $3, conn = $4, dev = $5, online = true, last_seen = now(),
         first_seen = COALESCE(first_seen, now()),
         cc = COALESCE($6, cc), reg = COALESCE($7, reg), city = COALESCE($8, city), zip = COALESCE($9, zip),
         isp = COALESCE($10, isp), lat = COALESCE($11, lat), lon = COALESCE($12, lon), mob = $13,
         host = COALESCE($14, host)
       WHERE id = $1`,
      [
        agentId,
        nodeId,
        hello.ip,
        hello.conn,
        hello.dev,
        loc?.cc ?? null,
        loc?.reg ?? null,
        loc?.city ?? null,
        loc?.zip ?? null,
        loc?.isp ?? null,
        loc?.lat ?? null,
        loc?.lon ?? null,
        mob,
        loc?.host ?? null,
      ],
    );
    await db.query(
      `WITH closed AS (UPDATE agent_presence SET ended_at = now() WHERE agent_id = $1 AND ended_at IS NULL)
       INSERT INTO agent_presence (agent_id, node_id) VALUES ($1, $2)`,
      [agentId, nodeId],
    );
    if (!loc?.host && reverse) void resolveHost(agentId, hello.ip);
  }

  /** Best effort: a slow or failing resolver leaves the host as it was. */
  async function resolveHost(agentId: string, ip: string): Promise<void> {
    try {
      const names = await withTimeout(reverse!(ip), dnsTimeoutMs);
      const host = names?.[0];
      if (host) await db.query('UPDATE agents SET host = $2 WHERE id = $1 AND ip = $3', [agentId, host, ip]);
    } catch {
      // No PTR record, or the resolver failed: keep the previous host.
    }
  }

  async function writeOffline(agentId: string): Promise<void> {
    // Only this node's claim: if the agent already dialed another node, that node owns its row.
    await db.query('UPDATE agents SET online = false, last_seen = now() WHERE id = $1 AND node_id = $2', [
      agentId,
      nodeId,
    ]);
    await db.query(
      'UPDATE agent_presence SET ended_at = now() WHERE agent_id = $1 AND node_id = $2 AND ended_at IS NULL',
      [agentId, nodeId],
    );
  }

  async function drain(): Promise<void> {
    await ready;
    while (pending.size > 0 && !closed) {
      const [agentId, wish] = pending.entries().next().value as [string, Pending];
      pending.delete(agentId);
      try {
        if (wish.online && wish.hello) await writeOnline(agentId, wish.hello);
        else await writeOffline(agentId);
      } catch (e) {
        onError(e);
        // Keep the latest wish (unless a newer one arrived meanwhile) and retry after a pause.
        if (!pending.has(agentId)) pending.set(agentId, wish);
        await new Promise((r) => setTimeout(r, retryMs));
      }
    }
  }

  function kick(): void {
    if (writer) return;
    writer = drain().finally(() => {
      writer = undefined;
      if (pending.size > 0 && !closed) kick();
      else {
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const w of waiters) w();
      }
    });
  }

  const heartbeat = setInterval(() => {
    if (closed) return;
    void (async () => {
      try {
        await ready;
        await db.query('UPDATE gateway_nodes SET last_heartbeat = now() WHERE id = $1', [nodeId]);
        const ids = [...tunnels.keys()];
        if (ids.length > 0) {
          await db.query('UPDATE agents SET last_seen = now() WHERE id = ANY($1) AND node_id = $2', [
            ids,
            nodeId,
          ]);
        }
      } catch (e) {
        onError(e);
      }
    })();
  }, options.heartbeatMs ?? 30_000);
  heartbeat.unref();

  return {
    ready,

    async authenticate(key) {
      if (typeof key !== 'string' || key.length === 0 || key.length > 512) return undefined;
      const rows = await db.query<{ id: string }>('SELECT id FROM agents WHERE key_hash = $1', [
        hashAgentKey(key),
      ]);
      return rows[0]?.id;
    },

    connected(agentId, hello) {
      tunnels.set(agentId, (tunnels.get(agentId) ?? 0) + 1);
      pending.set(agentId, { online: true, hello });
      kick();
    },

    disconnected(agentId) {
      const left = (tunnels.get(agentId) ?? 1) - 1;
      if (left > 0) {
        tunnels.set(agentId, left);
        return;
      }
      tunnels.delete(agentId);
      pending.set(agentId, { online: false, hello: undefined });
      kick();
    },

    idle() {
      if (!writer && pending.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => idleWaiters.push(resolve));
    },

    async close() {
      clearInterval(heartbeat);
      // Agents of this node go offline with it; a last best-effort write.
      for (const agentId of tunnels.keys()) pending.set(agentId, { online: false, hello: undefined });
      tunnels.clear();
      kick();
      await withTimeout(this.idle(), 5000);
      closed = true;
      await withTimeout(ready, 1000);
    },
  };
}
