/**
 * The node's spare package ports: ports of its package range it has bound (the SOCKS port and its
 * HTTP twin, both listening and refusing every connection while unsold) and recorded as
 * `package_ports` rows without a package (`bound_at` set). The server sells only these
 * (`allocatePorts`), so a customer never gets a port this node could not listen on. When the data
 * path serves a sold port it takes the spare's listening sockets over (`take`); the pool then binds
 * more. A port that cannot be bound is skipped, logged and counted, and tried again much later.
 */
import net from 'node:net';
import type { DbHandle } from '@pm/db';
import { Counter, Gauge, type Registry } from 'prom-client';

/** The counter of ports this node could not bind: `spare` (the pool), `package` (a sold port), `noauth` (a lease's). */
export type BindFailures = Counter<'kind'>;

/** A counter registered nowhere yet: the node registers it with its gateway's metrics once it runs. */
export function createBindFailures(): BindFailures {
  const counter = new Counter({
    name: 'gateway_port_bind_failures_total',
    help: 'Ports this node could not listen on, by kind: spare (the pool skipped it), package (a sold port), noauth (a lease port)',
    labelNames: ['kind'] as const,
    registers: [],
  });
  // Every kind from zero, so a scrape (and an alert on its rate) sees the series before the first failure.
  for (const kind of ['spare', 'package', 'noauth']) counter.labels({ kind }).inc(0);
  return counter;
}

export interface SparePortsOptions {
  db: DbHandle;
  nodeId: string;
  /** Address the spares listen on: the data path's, so the very sockets can serve the port once sold. */
  host: string;
  /** The node's package range (inclusive) and its HTTP twin offset. */
  min: number;
  max: number;
  httpOffset: number;
  /** Spares to hold (bound and recorded). */
  target: number;
  /** Ports the data path listens on now (sold package ports, no-auth ports): never bound as spares. */
  inUse?: () => Iterable<number>;
  failures: BindFailures;
  /** Period of the check against the database (sales, refunds); default 5 s. A `take` refills at once. */
  refillMs?: number;
  /** How long a port that failed to bind is left alone; default 10 minutes. */
  retryFailedMs?: number;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
  onError?: (err: unknown) => void;
}

export interface SparePorts {
  /** Resolves once the first fill is done (the pool may hold fewer than `target` when ports failed). */
  ready: Promise<void>;
  /**
   * Hands over the listening socket of a held port (a package port or its twin), for the data path
   * to serve once the port is sold: it stops refusing and the pool forgets it. Undefined when none.
   */
  take(listenPort: number): net.Server | undefined;
  /** The package ports held now (sold ones not yet taken over included), lowest first. */
  held(): number[];
  /** Publishes the pool's size (`gateway_package_spare_ports`) in `registry`. */
  registerMetrics(registry: Registry): void;
  /** Checks the database and binds more when short; resolves when done. */
  refill(): Promise<void>;
  /** Deletes this node's spare rows (nothing is sold while it is down) and closes the held sockets. */
  close(): Promise<void>;
}

/** The options of the data path's own listeners (`socksServer` in gateway.ts): the spare becomes one. */
const SERVER_OPTIONS = { allowHalfOpen: true, noDelay: true };
/** Refuses while unsold: a reset, as a closed port would answer. */
const refuse = (socket: net.Socket) => socket.resetAndDestroy();
const BIND_BATCH = 32;

function listen(server: net.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

const closeServer = (s: net.Server) => new Promise<void>((r) => s.close(() => r()));

/**
 * Starts the pool: forgets the spares an earlier process of this node recorded (they are bound
 * again and confirmed anew), then fills to `target`, and keeps it full as spares are sold.
 */
export function startSparePorts(o: SparePortsOptions): SparePorts {
  const { db, nodeId } = o;
  const log = o.log ?? (() => {});
  const onError = o.onError ?? (() => {});
  const retryFailedMs = o.retryFailedMs ?? 600_000;
  /** Package port -> its listening sockets (the port's, then its twin's) not yet taken over. */
  const held = new Map<number, Map<number, net.Server>>();
  /** Listening port -> the package port it belongs to. */
  const byListen = new Map<number, number>();
  /** Package port -> when it may be tried again after a failed bind. */
  const failedUntil = new Map<number, number>();
  let spareCount = 0;
  let closed = false;

  const gauge = new Gauge({
    name: 'gateway_package_spare_ports',
    help: 'Spare package ports this node holds bound and recorded (what the server may sell on it)',
    registers: [],
    collect() {
      this.set(spareCount);
    },
  });

  /** Binds a package port and its twin; on failure closes what was bound and says which port failed. */
  async function bindPair(
    port: number,
  ): Promise<Map<number, net.Server> | { listenPort: number; err: Error }> {
    const servers = new Map<number, net.Server>();
    for (const listenPort of o.httpOffset > 0 ? [port, port + o.httpOffset] : [port]) {
      const server = net.createServer(SERVER_OPTIONS, refuse);
      try {
        await listen(server, listenPort, o.host);
      } catch (err) {
        await Promise.all([...servers.values()].map(closeServer));
        return { listenPort, err: err as Error };
      }
      server.on('error', onError);
      servers.set(listenPort, server);
    }
    return servers;
  }

  function hold(port: number, servers: Map<number, net.Server>): void {
    held.set(port, servers);
    for (const listenPort of servers.keys()) byListen.set(listenPort, port);
  }

  async function release(port: number): Promise<void> {
    const servers = held.get(port);
    held.delete(port);
    for (const listenPort of servers?.keys() ?? []) byListen.delete(listenPort);
    await Promise.all([...(servers?.values() ?? [])].map(closeServer));
  }

  /** Records ports as confirmed spares; returns those recorded (a row already there keeps its port). */
  async function record(ports: number[]): Promise<Set<number>> {
    if (ports.length === 0) return new Set();
    const rows = await db.query<{ port: number }>(
      `INSERT INTO package_ports (node_id, port, bound_at)
       SELECT $1, p, now() FROM unnest($2::int[]) AS p
       ON CONFLICT (node_id, port) DO NOTHING RETURNING port`,
      [nodeId, ports],
    );
    return new Set(rows.map((r) => Number(r.port)));
  }

  /** Binds up to `need` new spares, lowest free ports first, and records them. */
  async function bindMore(need: number, recorded: ReadonlySet<number>): Promise<number> {
    const busy = new Set(o.inUse?.() ?? []);
    const now = Date.now();
    let added = 0;
    let next = o.min;
    while (added < need && next <= o.max && !closed) {
      const batch: number[] = [];
      for (; next <= o.max && batch.length < Math.min(BIND_BATCH, need - added); next++) {
        if (recorded.has(next) || held.has(next) || busy.has(next) || (failedUntil.get(next) ?? 0) > now)
          continue;
        batch.push(next);
      }
      const bound = await Promise.all(batch.map(async (port) => ({ port, result: await bindPair(port) })));
      const ok: number[] = [];
      for (const { port, result } of bound) {
        if (result instanceof Map) {
          hold(port, result);
          ok.push(port);
          continue;
        }
        failedUntil.set(port, now + retryFailedMs);
        o.failures.inc({ kind: 'spare' });
        log('spare package port skipped: bind failed', {
          port,
          listenPort: result.listenPort,
          error: result.err.message,
        });
      }
      const kept = await record(ok);
      for (const port of ok) if (!kept.has(port)) await release(port);
      added += kept.size;
    }
    return added;
  }

  /** One pass: held ports unsold again are recorded again, then the pool binds what it lacks. */
  async function fill(): Promise<void> {
    const rows = await db.query<{ port: number; spare: boolean }>(
      'SELECT port, package_id IS NULL AS spare FROM package_ports WHERE node_id = $1',
      [nodeId],
    );
    if (closed) return;
    const recorded = new Map(rows.map((r) => [Number(r.port), r.spare]));
    // A spare sold and refunded before the data path took it: still bound, so a spare again.
    const orphans = [...held.keys()].filter((p) => !recorded.has(p));
    const kept = await record(orphans);
    for (const port of orphans) if (!kept.has(port)) await release(port);
    spareCount = [...held.keys()].filter((p) => recorded.get(p) === true || kept.has(p)).length;
    if (spareCount < o.target) spareCount += await bindMore(o.target - spareCount, new Set(recorded.keys()));
  }

  let chain: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  /** Runs a fill after the one in progress; fills asked for meanwhile share it. */
  const refill = (): Promise<void> => {
    if (queued) return queued;
    const run = chain.then(async () => {
      queued = undefined;
      if (!closed) await fill();
    });
    queued = run;
    chain = run.catch(onError);
    return run;
  };

  const ready = (async () => {
    // An earlier process's spares are unconfirmed now: bound again and recorded anew.
    await db.query('DELETE FROM package_ports WHERE node_id = $1 AND package_id IS NULL', [nodeId]);
    await refill();
    if (spareCount < o.target)
      log('spare package ports: fewer than asked for', {
        held: spareCount,
        target: o.target,
        min: o.min,
        max: o.max,
      });
  })();
  const timer = setInterval(() => refill().catch(() => {}), o.refillMs ?? 5000);
  timer.unref();

  return {
    ready,
    take(listenPort) {
      const port = byListen.get(listenPort);
      if (port === undefined) return undefined;
      const servers = held.get(port)!;
      const server = servers.get(listenPort)!;
      servers.delete(listenPort);
      byListen.delete(listenPort);
      if (servers.size === 0) held.delete(port);
      server.removeListener('connection', refuse);
      server.removeListener('error', onError);
      refill().catch(() => {});
      return server;
    },
    held: () => [...held.keys()].sort((a, b) => a - b),
    registerMetrics: (registry) => registry.registerMetric(gauge),
    refill,
    async close() {
      closed = true;
      clearInterval(timer);
      await chain;
      await db
        .query('DELETE FROM package_ports WHERE node_id = $1 AND package_id IS NULL', [nodeId])
        .catch(onError);
      await Promise.all([...held.keys()].map(release));
    },
  };
}

/**
 * What the node does when the data path cannot listen on a port it serves (gateway.ts
 * `onListenFailed`): a sold package port gets `bind_error`, which the server's `ports.rebind` job
 * answers by moving the port to a spare or refunding the package; every failure is counted.
 */
export function reportServedBindFailure(o: {
  db: DbHandle;
  nodeId: string;
  failures: BindFailures;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
  onError?: (err: unknown) => void;
}): (port: number, listenPort: number, err: Error) => void {
  return (port, listenPort, err) => {
    o.db
      .query<{ port: number }>(
        `UPDATE package_ports SET bind_error = $3
         WHERE node_id = $1 AND port = $2 AND package_id IS NOT NULL RETURNING port`,
        [o.nodeId, port, `port ${listenPort}: ${err.message}`.slice(0, 200)],
      )
      .then((rows) => {
        const kind = rows.length > 0 ? 'package' : 'noauth';
        o.failures.inc({ kind });
        if (kind === 'package') o.log?.('package port bind failed', { port, listenPort, error: err.message });
      })
      .catch((e: unknown) => {
        o.failures.inc({ kind: 'package' });
        o.onError?.(e);
      });
  };
}
