import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { type Duplex, duplexPair } from 'node:stream';
import { isLoopbackHost, type Mux } from '@pm/tunnel';
import type { AgentDialer, AgentRegistry, LeaseDirectory, LeaseMeter } from './policy/types.ts';
import { encodeAddress, replyText } from './protocol/socks5.ts';
import { FailureLimiter, type FailureLimiterOptions } from './session/auth-limiter.ts';
import { flushLeaseBytes, flushSessionBytes } from './session/connection-steps.ts';
import { handleHttpProxyConnection } from './session/http-proxy.ts';
import { createGatewayMetrics, type GatewayMetrics } from './session/metrics.ts';
import { handleSocksConnection, type Session, type SessionContext } from './session/socks-session.ts';
import { startTunnelServer } from './tunnel/server.ts';

/** The HTTP proxy twin of a no-auth or package port listens on the port plus this (docs/gateway.md). */
export const HTTP_PORT_OFFSET = 20000;

export interface GatewayConfig {
  /** This node's name (metrics label; the control plane uses it for `socks.host` / `authPort.node`). */
  nodeId: string;
  /** Address every listener binds to. */
  host: string;
  /** Agents' tunnel port (0 = any free port). */
  tunnelPort: number;
  /** The four SOCKS (RFC 1929) ports: base + 2080, 3080, 4080, 5080 (0 = any free port). */
  socksPorts: number[];
  /** The leases' HTTP proxy ports (Basic `Proxy-Authorization` with the SOCKS credentials): base + 6080. */
  httpPorts?: number[];
  /**
   * Every no-auth and package port also answers as an HTTP proxy on itself plus this offset
   * (default `HTTP_PORT_OFFSET`, 20000; 0: no HTTP twins).
   */
  httpPortOffset?: number;
  /**
   * A listening socket already bound on a port the directory now lists (the node's spare package
   * ports, `store/spare-ports.ts`): served as it is instead of binding the port again.
   */
  takeListener?: (port: number) => net.Server | undefined;
  /** A no-auth or package port (`port`) could not be listened on (`listenPort`: it or its HTTP twin). */
  onListenFailed?: (port: number, listenPort: number, err: Error) => void;
  /** PEM certificate and key of the agents' tunnel (TLS 1.3): required unless `plaintextTunnel`. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /**
   * Agents' tunnel without TLS, on `tunnelHost` = loopback only: the devnet, the standalone
   * benchmark and tests. Anything else is refused at start.
   */
  plaintextTunnel?: boolean;
  /** Address of the agents' tunnel listener (default `host`). */
  tunnelHost?: string;
  /** Records per direction before a tunnel closes itself (default 2^24; tests lower it). */
  recordLimit?: number;
  directory: LeaseDirectory;
  meter: LeaseMeter;
  registry: AgentRegistry;
  /** Time allowed for a SOCKS handshake (greeting to CONNECT) and for an agent's HELLO. */
  handshakeTimeoutMs: number;
  /** Time allowed for the agent to answer an OPEN (default 15 s; the agent's connect timeout is 10 s). */
  openTimeoutMs?: number;
  /** Concurrent streams per agent tunnel (default 16384). */
  maxStreamsPerAgent?: number;
  /** Optional Prometheus `/metrics` and `/healthz` port (0 = any free port). */
  metricsPort?: number;
  /** Address the metrics listener binds to (default 127.0.0.1: metrics are not public). */
  metricsHost?: string;
  /** When set, `/metrics` needs `Authorization: Bearer <token>` (401 without, 403 wrong). */
  metricsToken?: string;
  /** This node's own addresses besides its listeners' (the public IP): agents refuse them as destinations. */
  gatewayIps?: string[];
  /**
   * Refuse customers from a loopback agent exit too (tests). Off by default: on loopback agents and
   * customers share 127.0.0.1 (devnet, tests), and a production agent never dials from loopback.
   */
  refuseLoopbackAgentExits?: boolean;
  /** Honour agents' `ip` override (devnet synthetic identities). */
  trustAgentIp?: boolean;
  /** Failed-authentication slow-down per source and credential, and the handshakes a source may hold. */
  authFailure?: FailureLimiterOptions;
  /** Interval of byte-counter flushes into the meter for long-lived connections (default 1000 ms). */
  meterFlushMs?: number;
  /** Tunnel keepalive. */
  pingIntervalMs?: number;
  idleTimeoutMs?: number;
  /** Per-stream flow-control window (bytes). */
  window?: number;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

export interface GatewayHandle extends AgentDialer {
  tunnelPort: number;
  socksPorts: number[];
  /** The leases' HTTP proxy ports as listened on. */
  httpPorts: number[];
  /** No-auth ports currently listened on. */
  authPorts(): number[];
  metricsPort: number | undefined;
  metrics: GatewayMetrics;
  /** Agent ids with a live tunnel to this node. */
  agentsOnline(): string[];
  /** The live tunnel of an agent on this node. */
  tunnel(agentId: string): Mux | undefined;
  /** Customer connections currently open (handshaking or relaying). */
  openConnections(): number;
  /** Sockets the SOCKS and no-auth listeners hold. */
  socketCount(): Promise<number>;
  /** Bytes queued in customer sockets' write buffers (bounded by the flow-control window per connection). */
  bufferedBytes(): number;
  close(): Promise<void>;
}

function listen(server: net.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

/**
 * A SOCKS listener: half-open sockets (a customer's FIN travels to the target while the answer
 * still comes back), Nagle off for the handshake's small writes.
 */
function socksServer(onConnection: (socket: net.Socket) => void): net.Server {
  return net.createServer({ allowHalfOpen: true, noDelay: true }, onConnection);
}

/** 401 without a bearer token, 403 with the wrong one, 0 when `/metrics` may answer (no token set: open, on loopback). */
export function metricsDenied(authorization: string | undefined, token: string | undefined): 0 | 401 | 403 {
  if (!token) return 0;
  const given = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1];
  if (!given) return 401;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b) ? 0 : 403;
}

/** Starts a gateway node: the agents' tunnel endpoint, the SOCKS ports, the no-auth ports and metrics. */
export async function startGateway(config: GatewayConfig): Promise<GatewayHandle> {
  const log = config.log ?? (() => {});
  let openConnections = () => 0;
  const metrics = createGatewayMetrics(config.nodeId, () => openConnections());
  const tunnels = await startTunnelServer({
    host: config.tunnelHost ?? config.host,
    port: config.tunnelPort,
    tls: config.tls,
    plaintextLoopback: config.plaintextTunnel,
    recordLimit: config.recordLimit,
    registry: config.registry,
    handshakeTimeoutMs: config.handshakeTimeoutMs,
    trustAgentIp: config.trustAgentIp,
    gatewayIps: config.gatewayIps,
    window: config.window,
    pingIntervalMs: config.pingIntervalMs,
    idleTimeoutMs: config.idleTimeoutMs,
    onAgentsChanged: (n) => metrics.agentsOnline.set(n),
    log,
  });
  const ctx: SessionContext = {
    directory: config.directory,
    meter: config.meter,
    tunnels,
    limiter: new FailureLimiter(config.authFailure),
    metrics,
    handshakeTimeoutMs: config.handshakeTimeoutMs,
    openTimeoutMs: config.openTimeoutMs ?? 15_000,
    maxStreamsPerAgent: config.maxStreamsPerAgent ?? 16_384,
    sessions: new Set<Session>(),
    byLease: new Map(),
    packageExits: new Map(),
    handshaking: new Set(),
  };

  openConnections = () => ctx.handshaking.size + ctx.sessions.size;
  /**
   * A customer connection from a connected agent's exit is a customer riding an agent back into the
   * gateway (to use another customer's whitelisted port, or to chain): closed before the handshake.
   * Loopback is exempt unless `refuseLoopbackAgentExits`.
   */
  const accept = (socket: net.Socket, authPort?: number) => {
    const ip = socket.remoteAddress;
    if (ip && (config.refuseLoopbackAgentExits || !isLoopbackHost(ip)) && tunnels.isAgentExit(ip)) {
      socket.destroy();
      return;
    }
    handleSocksConnection(socket, ctx, authPort);
  };
  const acceptHttp = (socket: net.Socket, authPort?: number) => {
    const ip = socket.remoteAddress;
    if (ip && (config.refuseLoopbackAgentExits || !isLoopbackHost(ip)) && tunnels.isAgentExit(ip)) {
      socket.destroy();
      return;
    }
    handleHttpProxyConnection(socket, ctx, authPort);
  };
  const httpOffset = config.httpPortOffset ?? HTTP_PORT_OFFSET;
  const servers: net.Server[] = [];
  const socksPorts: number[] = [];
  const httpPorts: number[] = [];
  const listeners = [
    ...config.socksPorts.map((port) => ({ port, http: false })),
    ...(config.httpPorts ?? []).map((port) => ({ port, http: true })),
  ];
  for (const { port, http: isHttp } of listeners) {
    const server = socksServer((s) => (isHttp ? acceptHttp(s) : accept(s)));
    servers.push(server);
    try {
      (isHttp ? httpPorts : socksPorts).push(await listen(server, port, config.host));
    } catch (err) {
      // A port in use must not leave the tunnel endpoint and the other listeners open.
      for (const s of servers) s.close();
      await tunnels.close();
      throw err;
    }
  }

  // No-auth ports follow the directory.
  const authServers = new Map<number, net.Server>();
  const syncAuthPorts = () => {
    // Each no-auth or package port, and its HTTP twin (listened on as port + offset, keyed negative).
    const wanted = new Set<number>();
    for (const port of config.directory.authPorts()) {
      wanted.add(port);
      if (httpOffset > 0 && port + httpOffset <= 65535) wanted.add(-port);
    }
    for (const [port, server] of authServers) {
      if (!wanted.has(port)) {
        authServers.delete(port);
        server.close();
      }
    }
    for (const key of wanted) {
      if (authServers.has(key)) continue;
      const port = key < 0 ? -key + httpOffset : key;
      const onConnection = (s: net.Socket) => (key < 0 ? acceptHttp(s, -key) : accept(s, key));
      const taken = config.takeListener?.(port);
      if (taken) {
        authServers.set(key, taken.on('connection', onConnection));
        continue;
      }
      const server = socksServer(onConnection);
      authServers.set(key, server);
      listen(server, port, config.host).catch((err: Error) => {
        log('no-auth port listen failed', { port, error: err.message });
        if (authServers.get(key) === server) authServers.delete(key);
        config.onListenFailed?.(Math.abs(key), port, err);
      });
    }
  };
  syncAuthPorts();
  const offPorts = config.directory.onAuthPortsChanged(syncAuthPorts);

  const offRevoked = config.directory.onRevoked((leaseId) => {
    const set = ctx.byLease.get(leaseId);
    if (!set) return;
    for (const s of [...set]) s.socket.destroy();
  });
  // A private lease took an agent: the package connections through it end at once.
  const offExit = config.directory.onExitClosed?.((agentId) => {
    for (const s of [...(ctx.packageExits.get(agentId) ?? [])]) s.socket.destroy();
  });
  const offFlush = config.directory.onFlushRequested?.((leaseId) => flushLeaseBytes(leaseId, ctx));

  const flushTimer = setInterval(() => {
    for (const s of ctx.sessions) flushSessionBytes(s, ctx);
  }, config.meterFlushMs ?? 1000);
  flushTimer.unref();

  let metricsServer: http.Server | undefined;
  let metricsPort: number | undefined;
  if (config.metricsPort !== undefined) {
    metricsServer = http.createServer((req, res) => {
      if (req.url === '/healthz') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ status: 'ok', node: config.nodeId, agentsOnline: tunnels.agentIds().length }),
        );
        return;
      }
      if (req.url === '/metrics') {
        const denied = metricsDenied(req.headers.authorization, config.metricsToken);
        if (denied) {
          res.writeHead(denied, denied === 401 ? { 'www-authenticate': 'Bearer' } : {});
          res.end();
          return;
        }
        metrics.registry.metrics().then(
          (text) => {
            res.writeHead(200, { 'content-type': metrics.registry.contentType });
            res.end(text);
          },
          () => {
            res.writeHead(500);
            res.end();
          },
        );
        return;
      }
      res.writeHead(404);
      res.end();
    });
    metricsPort = await listen(metricsServer, config.metricsPort, config.metricsHost ?? '127.0.0.1');
  }

  let closed = false;
  return {
    tunnelPort: tunnels.port,
    socksPorts,
    httpPorts,
    authPorts: () => [...authServers.keys()].filter((k) => k > 0).sort((a, b) => a - b),
    metricsPort,
    metrics,
    agentsOnline: () => tunnels.agentIds(),
    tunnel: (agentId) => tunnels.get(agentId),
    dial: (agentId, host, port) =>
      new Promise<Duplex>((resolve, reject) => {
        const mux = tunnels.get(agentId);
        if (!mux || mux.closed) return reject(Object.assign(new Error('agent offline'), { reply: 0x01 }));
        const [near, far] = duplexPair();
        const timer = setTimeout(() => {
          st.onOpenResult = null;
          mux.reset(st);
          reject(Object.assign(new Error('agent did not answer in time'), { reply: 0x06 }));
        }, ctx.openTimeoutMs);
        const st = mux.open(encodeAddress(host, port), (code) => {
          clearTimeout(timer);
          if (code !== 0) return reject(Object.assign(new Error(replyText(code)), { reply: code }));
          mux.attach(st, far);
          resolve(near);
        });
      }),
    openConnections: () => openConnections(),
    socketCount: async () => {
      const counts = [...servers, ...authServers.values()].map(
        (s) => new Promise<number>((resolve) => s.getConnections((err, n) => resolve(err ? 0 : n))),
      );
      return (await Promise.all(counts)).reduce((a, b) => a + b, 0);
    },
    bufferedBytes: () => {
      let n = 0;
      for (const s of ctx.sessions) n += s.socket.writableLength;
      return n;
    },
    close: async () => {
      if (closed) return;
      closed = true;
      offPorts();
      offRevoked();
      offExit?.();
      offFlush?.();
      clearInterval(flushTimer);
      const all = [...servers, ...authServers.values()];
      authServers.clear();
      const done = all.map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
      for (const s of [...ctx.sessions]) s.socket.destroy();
      for (const s of [...ctx.handshaking]) s.destroy();
      await tunnels.close();
      await Promise.all(done);
      if (metricsServer) {
        metricsServer.closeAllConnections();
        await new Promise<void>((resolve) => metricsServer.close(() => resolve()));
      }
    },
  };
}
