/**
 * The demo proxy network for `npm start`: one gateway node on the product's database, a few dozen
 * real agents with synthetic public identities (documentation address ranges, one tunnel each), a
 * few of them already shared by other demo customers, and a loopback HTTP target the gateway
 * probes and speed-tests through them.
 */
import type { DbHandle } from '@pm/db';
import { type GatewayHandle, startGatewayNode } from '@pm/gateway';
import { createOverrideGeo, type Loc } from '@pm/gateway/geo/geo';
import type { PresenceMonitor } from '@pm/gateway/presence/presence';
import {
  type DemoAgents,
  demoIdentities,
  demoStaticIdentities,
  startDemoAgents,
  startProbeTarget,
} from './agents.ts';
import { seedDemoSharedLeases } from './demo-leases.ts';

export interface DemoNetworkConfig {
  db: DbHandle;
  /** The product's listeners' address (`HOST`); the SOCKS ports use `socksHost`, not this. */
  host: string;
  /**
   * Address the SOCKS and no-auth ports bind to (default 127.0.0.1, whatever `host` is): the demo
   * agents relay to this machine's loopback services, so the ports are for this machine unless the
   * operator says otherwise (with a warning).
   */
  socksHost?: string | undefined;
  publicHost: string;
  nodeId: string;
  /** Base port; SOCKS listens on base plus `SOCKS_PORT_OFFSETS` (2080, 3080, 4080, 5080). */
  socksBasePort: number;
  tunnelPort: number;
  /** No-auth ports are allocated from this range. */
  authPortMin: number;
  authPortMax: number;
  /**
   * The node's package range, the HTTP twin offset of its no-auth and package ports, and the spares
   * it keeps bound and recorded (`npm start`: PACKAGE_PORT_MIN/MAX, HTTP_PORT_OFFSET,
   * PACKAGE_SPARE_PORTS). Unset: the gateway's defaults and no spares, so no package is sold here.
   */
  packagePorts?: { min: number; max: number; httpOffset: number; spares: number } | undefined;
  agentCount: number;
  metricsPort?: number | undefined;
  probeIntervalMs?: number;
  /**
   * Also run the static (datacenter) demo agents, on top of `agentCount` (default true; none when
   * `agentCount` is 0).
   */
  staticAgents?: boolean;
  /** Give the agents marked `sharers` their other customers' shared leases at start (default true). */
  sharedLeases?: boolean;
}

/** What `npm start` prints about the demo tunnels: they are the one place without TLS. */
export const DEMO_TUNNEL_NOTICE =
  'agent tunnels plaintext on 127.0.0.1 (devnet only; a production gateway requires TLS)';

export interface DemoNetwork {
  socksHost: string;
  /** `DEMO_TUNNEL_NOTICE`, for the launcher's output. */
  tunnelNotice: string;
  socksPorts: number[];
  tunnelPort: number;
  agentsOnline(): string[];
  /** Package ports the node holds bound as spares (what a purchase may take). */
  sparePorts(): number;
  gateway: GatewayHandle;
  presence: PresenceMonitor;
  /**
   * Moves an agent's public exit to another address, as a carrier re-addressing the device would:
   * the tunnel stays up, and the next purchase probe sees the new exit (and `loc` for it).
   */
  moveExit(agentId: string, exit: { ip: string; loc: Loc }): void;
  /**
   * Stops one agent's process, as a device switched off would: its tunnel closes and the gateway
   * marks it offline.
   */
  stopAgent(agentId: string): Promise<void>;
  /**
   * Freezes one agent, as a hung device would: its tunnel stays connected but it reads nothing, so
   * nothing through it is answered (a purchase probe times out). Returns the thaw. The agent's own
   * keepalive drops a tunnel it has not heard from in 45 s, so a freeze is meant to be short.
   */
  stallAgent(agentId: string): () => void;
  close(): Promise<void>;
}

const CLOSE_TIMEOUT_MS = 10_000;

/** What the devnet prints when its SOCKS ports are reachable from beyond this machine. */
export function socksExposureWarning(socksHost: string): string | null {
  const h = socksHost.replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === '::1' || /^127\./.test(h)) return null;
  return `demo network: SOCKS ports bound to ${socksHost}: the demo agents reach this machine's loopback services (databases included), so anyone holding a demo lease's credentials can too; keep GATEWAY_SOCKS_HOST=127.0.0.1 unless this machine is a throwaway`;
}

/** Runs one part's shutdown, but never waits on it for more than `ms`: stopping must not hang. */
async function closeWithin(name: string, close: () => Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  const result = await Promise.race([close().catch(() => 'failed' as const), timedOut]);
  clearTimeout(timer);
  if (result === 'timeout') console.error(`demo network: ${name} did not close within ${ms} ms`);
}

/** The running agent of a demo identity. */
function agentOf(agents: DemoAgents, agentId: string): DemoAgents['agents'][number] {
  const i = agents.identities.findIndex((d) => d.id === agentId);
  const agent = agents.agents[i];
  if (!agent) throw new Error(`demo network: no agent ${agentId}`);
  return agent;
}

export async function startDemoNetwork(cfg: DemoNetworkConfig): Promise<DemoNetwork> {
  const closers: Array<{ name: string; close: () => Promise<void> }> = [];
  const closeAll = async () => {
    for (const c of closers.reverse()) await closeWithin(c.name, c.close, CLOSE_TIMEOUT_MS);
  };
  try {
    // The static agents too: the location map and the exits must know them, or they lose their place on connect.
    const identities = [
      ...demoIdentities(cfg.agentCount),
      ...(cfg.agentCount > 0 && (cfg.staticAgents ?? true) ? demoStaticIdentities() : []),
    ];
    // Mutable, so moveExit can place a new exit: the geo lookup and the echo read them live.
    const places = new Map<string, Loc>(identities.map((d) => [d.ip, d.loc]));
    const exits = new Map(identities.map((d) => [d.id, d.ip]));
    const geo = createOverrideGeo(places);
    // The outside world the gateway probes through the agents: probe page, speed bytes, IP echo.
    const target = await startProbeTarget({ host: '127.0.0.1', exits: (id) => exits.get(id) });
    closers.push({ name: 'probe target', close: () => target.close() });
    // The same node composition as a production gateway (`main.ts`), with the demo's stand-ins.
    const socksHost = cfg.socksHost ?? '127.0.0.1';
    const warning = socksExposureWarning(socksHost);
    if (warning) console.warn(warning);
    const node = await startGatewayNode({
      db: cfg.db,
      nodeId: cfg.nodeId,
      node: {
        publicHost: cfg.publicHost,
        publicIp: '127.0.0.1',
        socksBasePort: cfg.socksBasePort,
        authPortMin: cfg.authPortMin,
        authPortMax: cfg.authPortMax,
        packagePortMin: cfg.packagePorts?.min,
        packagePortMax: cfg.packagePorts?.max,
        packageHttpOffset: cfg.packagePorts?.httpOffset,
      },
      packageSparePorts: cfg.packagePorts?.spares,
      host: socksHost,
      tunnelPort: cfg.tunnelPort,
      // The in-process demo agents dial over loopback without TLS; the gateway allows that on
      // loopback only, so the tunnel listener stays there whatever `host` the SOCKS ports use.
      plaintextTunnel: true,
      tunnelHost: '127.0.0.1',
      metricsPort: cfg.metricsPort,
      // Demo agents announce their synthetic public address; production never trusts it.
      trustAgentIp: true,
      geo,
      // Synthetic documentation addresses have no reverse DNS; the identities carry a host name.
      reverseDns: false,
      presence: {
        probeUrl: target.probeUrl,
        speedUrl: target.speedUrl,
        probeIntervalMs: cfg.probeIntervalMs ?? 60_000,
      },
      probeRequests: { echoUrl: target.echoUrl },
    });
    // Closed before the probe target; inside, the gateway before the control plane.
    closers.push({ name: 'gateway node', close: () => node.close() });
    const { gateway, presence } = node;
    const agents: DemoAgents = await startDemoAgents({
      db: cfg.db,
      gateway: { host: '127.0.0.1', port: gateway.tunnelPort },
      identities,
    });
    closers.push({ name: 'demo agents', close: () => agents.close() });
    await agents.waitConnected(15_000);
    if (cfg.sharedLeases ?? true) {
      // The leases name the agent's node, which the registry writes off the tunnel's path.
      await node.plane.registry.idle();
      await seedDemoSharedLeases(cfg.db, identities);
    }
    return {
      socksHost: cfg.publicHost,
      tunnelNotice: DEMO_TUNNEL_NOTICE,
      socksPorts: gateway.socksPorts,
      tunnelPort: gateway.tunnelPort,
      agentsOnline: () => gateway.agentsOnline(),
      sparePorts: () => node.spares?.held().length ?? 0,
      gateway,
      presence,
      moveExit(agentId, exit) {
        places.set(exit.ip, exit.loc);
        exits.set(agentId, exit.ip);
      },
      stopAgent: (agentId) => agentOf(agents, agentId).close(),
      stallAgent(agentId) {
        const tunnel = agentOf(agents, agentId).tunnel();
        if (!tunnel) throw new Error(`demo network: agent ${agentId} has no tunnel up`);
        tunnel.socket.pause();
        return () => tunnel.socket.resume();
      },
      close: closeAll,
    };
  } catch (e) {
    await closeAll();
    throw e;
  }
}
