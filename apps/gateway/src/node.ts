import { LEASE_HTTP_PORT_OFFSET, SOCKS_PORT_OFFSETS } from '@pm/contracts';
import type { DbHandle } from '@pm/db';
import { Gauge } from 'prom-client';
import { type GatewayConfig, type GatewayHandle, startGateway } from './gateway.ts';
import type { GeoLookup } from './geo/geo.ts';
import { DEFAULT_PORTS } from './port-plan.ts';
import { createPresenceMonitor, type PresenceMonitor } from './presence/presence.ts';
import { type ProbeRequestWorker, startProbeRequestWorker } from './presence/probe-requests.ts';
import { type SpeedRequestWorker, startSpeedRequestWorker } from './presence/speed-requests.ts';
import type { GatewayNodeInfo } from './store/agent-registry.ts';
import { type ControlPlane, startControlPlane } from './store/control-plane.ts';
import {
  createBindFailures,
  reportServedBindFailure,
  type SparePorts,
  startSparePorts,
} from './store/spare-ports.ts';

export interface GatewayNodeConfig {
  db: DbHandle;
  nodeId: string;
  /** This node as customers see it; its SOCKS ports are `socksBasePort` plus `SOCKS_PORT_OFFSETS`. */
  node: GatewayNodeInfo;
  /** Address the SOCKS, no-auth and metrics listeners bind to. */
  host: string;
  tunnelPort: number;
  /** The tunnel's certificate and key (TLS 1.3); plaintext only with `plaintextTunnel` on loopback. */
  tls?: GatewayConfig['tls'];
  plaintextTunnel?: boolean;
  /** Address of the tunnel listener (default `host`). */
  tunnelHost?: string;
  metricsPort?: number;
  /** Address of the metrics listener (default 127.0.0.1) and its optional bearer token. */
  metricsHost?: string;
  metricsToken?: string;
  /** Honour agents' `ip` override (devnet synthetic identities only). */
  trustAgentIp?: boolean;
  /** Where agents' addresses are located (DB-IP in production, the devnet's map in the demo). */
  geo?: GeoLookup;
  /** Reverse DNS of agent addresses (default on). */
  reverseDns?: boolean;
  /** Presence probes and speed tests: the URLs requested through the agents. */
  presence: { probeUrl: string; speedUrl: string; probeIntervalMs?: number };
  /** The market API's purchase probes: the IP-echo URL requested through the agent. */
  probeRequests: { echoUrl: string; timeoutMs?: number };
  handshakeTimeoutMs?: number;
  /**
   * Spare package ports to keep bound and recorded (`store/spare-ports.ts`) from the node's package
   * range (`node.packagePortMin`-`packagePortMax`); 0 or unset: none, so nothing is sold on this node.
   */
  packageSparePorts?: number;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

/** One running gateway node and its parts. */
export interface GatewayNode {
  gateway: GatewayHandle;
  plane: ControlPlane;
  presence: PresenceMonitor;
  probeRequests: ProbeRequestWorker;
  /** The market API's speed checks (`speed_checks` rows for this node). */
  speedRequests: SpeedRequestWorker;
  /** The spare package ports, when `packageSparePorts` asked for some. */
  spares: SparePorts | undefined;
  /** Stops the parts in reverse order; the gateway before the control plane, so the meter sees every byte. */
  close(): Promise<void>;
}

/** A node's package range and HTTP twin offset, `DEFAULT_PORTS` where its info leaves them out. */
function packageRangeOf(node: GatewayNodeInfo): { min: number; max: number; httpOffset: number } {
  return {
    min: node.packagePortMin ?? DEFAULT_PORTS.packagePortMin,
    max: node.packagePortMax ?? DEFAULT_PORTS.packagePortMax,
    httpOffset: node.packageHttpOffset ?? DEFAULT_PORTS.httpPortOffset,
  };
}

/** The leases' HTTP proxy port: base + 6080 (0 = any free port). */
export function httpPortOf(basePort: number): number {
  return basePort ? basePort + LEASE_HTTP_PORT_OFFSET : 0;
}

/** The SOCKS ports of a node: its base port plus `SOCKS_PORT_OFFSETS`, or any free ports for base 0. */
export function socksPortsOf(basePort: number): number[] {
  return SOCKS_PORT_OFFSETS.map((offset) => (basePort ? basePort + offset : 0));
}

/**
 * Starts one gateway node on PostgreSQL, the one composition `main.ts` and the devnet share: the
 * control plane (leases, agents with their location, counters), the data path, presence probes and
 * activity, and the market API's purchase probes. Resolves once every part is up.
 */
export async function startGatewayNode(config: GatewayNodeConfig): Promise<GatewayNode> {
  const log = config.log ?? (() => {});
  const onError = (part: string) => (err: unknown) => log(`${part} error`, { error: String(err) });
  const closers: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close().catch(onError('close'));
  };
  try {
    const plane = await startControlPlane({
      db: config.db,
      nodeId: config.nodeId,
      node: config.node,
      geo: config.geo,
      reverseDns: config.reverseDns,
      onError: onError('control plane'),
    });
    closers.push(() => plane.close());
    const range = packageRangeOf(config.node);
    const bindFailures = createBindFailures();
    /** The ports the data path listens on, once it runs (the pool leaves them alone). */
    let servedPorts: () => number[] = () => [];
    let spares: SparePorts | undefined;
    if (config.packageSparePorts) {
      // Before the data path: when a sold port fails to bind at a restart, spares to move it to exist.
      const pool = startSparePorts({
        db: config.db,
        nodeId: config.nodeId,
        host: config.host,
        ...range,
        target: config.packageSparePorts,
        inUse: () => servedPorts(),
        failures: bindFailures,
        log,
        onError: onError('spare ports'),
      });
      spares = pool;
      closers.push(() => pool.close());
      // A package can be bought as soon as the node is up.
      await pool.ready;
    }
    const gateway = await startGateway({
      nodeId: config.nodeId,
      host: config.host,
      tunnelHost: config.tunnelHost,
      tunnelPort: config.tunnelPort,
      socksPorts: socksPortsOf(config.node.socksBasePort),
      httpPorts: [httpPortOf(config.node.socksBasePort)],
      tls: config.tls,
      plaintextTunnel: config.plaintextTunnel,
      directory: plane.served,
      meter: plane.meter,
      registry: plane.registry,
      handshakeTimeoutMs: config.handshakeTimeoutMs ?? 10_000,
      metricsPort: config.metricsPort,
      metricsHost: config.metricsHost,
      metricsToken: config.metricsToken,
      trustAgentIp: config.trustAgentIp,
      // Agents refuse the node's public address (and its listeners' addresses, which the tunnel adds).
      gatewayIps: [config.node.publicIp],
      httpPortOffset: range.httpOffset,
      takeListener: (port) => spares?.take(port),
      onListenFailed: reportServedBindFailure({
        db: config.db,
        nodeId: config.nodeId,
        failures: bindFailures,
        log,
        onError: onError('bind report'),
      }),
      log,
    });
    closers.push(() => gateway.close());
    servedPorts = () => gateway.authPorts();
    gateway.metrics.registry.registerMetric(bindFailures);
    // Leases with traffic not yet in the database: above 0 for more than a flush, PostgreSQL is away.
    gateway.metrics.registry.registerMetric(
      new Gauge({
        name: 'gateway_meter_pending_leases',
        help: 'Leases and packages whose traffic counters are held in memory, not yet written',
        registers: [],
        collect() {
          this.set(plane.meter.pendingLeases());
        },
      }),
    );
    spares?.registerMetrics(gateway.metrics.registry);
    const presence = createPresenceMonitor({
      db: config.db,
      nodeId: config.nodeId,
      dialer: gateway,
      agentsOnline: () => gateway.agentsOnline(),
      probeUrl: config.presence.probeUrl,
      speedUrl: config.presence.speedUrl,
      probeIntervalMs: config.presence.probeIntervalMs,
      onError: onError('presence'),
    });
    closers.push(() => presence.close());
    const probeRequests = startProbeRequestWorker({
      db: config.db,
      nodeId: config.nodeId,
      dialer: gateway,
      echoUrl: config.probeRequests.echoUrl,
      timeoutMs: config.probeRequests.timeoutMs,
      geo: config.geo,
      reverseDns: config.reverseDns === false ? false : undefined,
      onError: onError('probe request'),
    });
    closers.push(() => probeRequests.close());
    const speedRequests = startSpeedRequestWorker({
      db: config.db,
      nodeId: config.nodeId,
      presence,
      onError: onError('speed request'),
    });
    closers.push(() => speedRequests.close());
    await Promise.all([probeRequests.ready, speedRequests.ready]);
    return { gateway, plane, presence, probeRequests, speedRequests, spares, close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
