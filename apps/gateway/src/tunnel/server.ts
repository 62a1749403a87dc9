import net from 'node:net';
import tls from 'node:tls';
import {
  AGENT_PING_MS,
  DEFAULT_WINDOW,
  type HelloMessage,
  isLoopbackHost,
  Mux,
  normalizeIp,
  sourceKey,
  T_HELLO,
  T_REJECT,
  T_RENEW,
  T_WELCOME,
  TUNNEL_TLS,
  TUNNEL_VERSION,
  type WelcomeMessage,
} from '@pm/tunnel';
import type { AgentRegistry } from '../policy/types.ts';

export interface TunnelServerConfig {
  host: string;
  port: number;
  /** PEM certificate and key of the tunnel's TLS: required unless `plaintextLoopback`. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /**
   * No TLS, for the devnet, the standalone benchmark and tests only: refused unless `host` is a
   * loopback address, so agent keys and customer traffic never cross a network in clear.
   */
  plaintextLoopback?: boolean;
  registry: AgentRegistry;
  /** Time allowed from TCP accept to a verified HELLO (the TLS handshake included). */
  handshakeTimeoutMs: number;
  /** Honour the agent's `ip` override in HELLO (devnet synthetic identities). */
  trustAgentIp?: boolean;
  /** This node's own addresses (public IP, listener addresses): WELCOME tells agents to refuse them. */
  gatewayIps?: string[];
  window?: number;
  pingIntervalMs?: number;
  idleTimeoutMs?: number;
  /** Records per direction before a tunnel closes itself (default `RECORD_LIMIT`; tests lower it). */
  recordLimit?: number;
  onAgentsChanged?: (online: number) => void;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

export interface TunnelServer {
  port: number;
  /** The live tunnel of an agent, if it is connected to this node. */
  get(agentId: string): Mux | undefined;
  agentIds(): string[];
  /**
   * Whether `ip` is where a connected agent's tunnel comes from (IPv6 by /64): a customer
   * connection from there rides an agent back into the gateway.
   */
  isAgentExit(ip: string | undefined): boolean;
  close(): Promise<void>;
}

/** Why a tunnel listener or dial without TLS is refused, or null when it is allowed. */
export function plaintextRefusal(hasTls: boolean, plaintextLoopback: boolean, host: string): string | null {
  if (hasTls) return null;
  if (!plaintextLoopback) return 'the agent tunnel needs TLS: a certificate and key';
  if (!isLoopbackHost(host)) return `a plaintext agent tunnel is for loopback only, not ${host}`;
  return null;
}

/**
 * Starts the agents' tunnel endpoint: TLS 1.3 (or plaintext on loopback, when asked for by name),
 * HELLO verified by the registry before anything else is answered, one tunnel per agent.
 */
export async function startTunnelServer(config: TunnelServerConfig): Promise<TunnelServer> {
  const refusal = plaintextRefusal(Boolean(config.tls), config.plaintextLoopback ?? false, config.host);
  if (refusal) throw new Error(`tunnel server: ${refusal}`);
  const agents = new Map<string, Mux>();
  /** Tunnels per source (`sourceKey` of the tunnel's remote address), authenticated ones only. */
  const exits = new Map<string, number>();
  const sockets = new Set<net.Socket>();
  const log = config.log ?? (() => {});
  const window = config.window ?? DEFAULT_WINDOW;
  // The period agents are asked to PING at (WELCOME), and the gateway's own: it pings only a tunnel
  // silent that long, and closes one silent for three periods.
  const pingMs = config.pingIntervalMs ?? AGENT_PING_MS;

  /** Runs the tunnel on a connection whose TLS (if any) is up; `timer`, set at accept, bounds the wait for HELLO. */
  const onSocket = (socket: net.Socket, timer: NodeJS.Timeout) => {
    let agentId: string | undefined;
    let helloSeen = false;
    const mux: Mux = new Mux(socket, {
      window,
      pingIntervalMs: pingMs,
      idleTimeoutMs: config.idleTimeoutMs,
      // Agents PING every interval: the gateway answers, and pings only a tunnel gone quiet.
      pingOnlyWhenSilent: true,
      recordLimit: config.recordLimit,
      // Nothing but the handshake until the key is verified: no PONG, no PING, no DATA.
      preAuth: true,
      // The agent dials a fresh tunnel; this one then drains (see `onAuthenticated`).
      onRenewDue: () => mux.writeFrame(T_RENEW, 0, Buffer.alloc(0)),
      onControl: (type, _id, payload) => {
        if (type !== T_HELLO || helloSeen) {
          mux.destroy(new Error(`tunnel: unexpected frame 0x${type.toString(16)}`));
          return;
        }
        helloSeen = true;
        let hello: HelloMessage;
        try {
          hello = JSON.parse(payload.toString('utf8')) as HelloMessage;
          if (hello.v !== TUNNEL_VERSION || typeof hello.key !== 'string') throw new Error('bad hello');
        } catch {
          mux.destroy(new Error('tunnel: malformed HELLO'));
          return;
        }
        config.registry.authenticate(hello.key).then(
          (id) => {
            if (mux.closed) return;
            if (!id) {
              mux.writeFrame(T_REJECT, 0, Buffer.from(JSON.stringify({ reason: 'unknown agent key' })));
              log('agent rejected', { ip: normalizeIp(socket.remoteAddress) });
              setTimeout(() => mux.destroy(), 50).unref();
              return;
            }
            clearTimeout(timer);
            agentId = id;
            onAuthenticated(mux, id, hello, socket);
          },
          (err: unknown) => mux.destroy(err instanceof Error ? err : new Error(String(err))),
        );
      },
      onClose: (err) => {
        clearTimeout(timer);
        if (agentId) {
          const key = sourceKey(socket.remoteAddress);
          const n = (exits.get(key) ?? 1) - 1;
          if (n > 0) exits.set(key, n);
          else exits.delete(key);
        }
        if (agentId && agents.get(agentId) === mux) {
          agents.delete(agentId);
          config.registry.disconnected(agentId);
          config.onAgentsChanged?.(agents.size);
          log('agent disconnected', { agentId, reason: err?.message });
        }
      },
    });
  };

  /**
   * A verified agent: its tunnel serves new streams from now on. An earlier tunnel of the same
   * agent (a renewal, or a connection the agent gave up on) drains: it closes once its streams end.
   */
  const onAuthenticated = (mux: Mux, id: string, hello: HelloMessage, socket: net.Socket) => {
    mux.authenticated();
    if (Number.isInteger(hello.window) && hello.window > 0) mux.peerWindow = hello.window;
    if (Number.isInteger(hello.maxStreams) && hello.maxStreams! > 0) mux.peerMaxStreams = hello.maxStreams!;
    const previous = agents.get(id);
    agents.set(id, mux);
    previous?.drain();
    const observed = normalizeIp(socket.remoteAddress);
    const key = sourceKey(observed);
    exits.set(key, (exits.get(key) ?? 0) + 1);
    const ip = config.trustAgentIp && hello.ip ? hello.ip : observed;
    const gateway = [...new Set([...(config.gatewayIps ?? []), normalizeIp(socket.localAddress)])];
    const welcome: WelcomeMessage = { agentId: id, window, exit: observed, gateway, pingMs };
    mux.writeFrame(T_WELCOME, 0, Buffer.from(JSON.stringify(welcome)));
    config.registry.connected(id, {
      ip,
      conn: hello.conn === 'cell' ? 'cell' : 'wifi',
      dev: hello.dev === 'android' ? 'android' : 'other',
    });
    config.onAgentsChanged?.(agents.size);
    log('agent connected', { agentId: id, ip });
  };

  /** A plain or TLS socket, its handshake done: the mux runs on it; the timer bounds the wait for HELLO. */
  const onConnection = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    onSocket(
      socket,
      setTimeout(() => socket.destroy(), config.handshakeTimeoutMs),
    );
  };
  const server = config.tls
    ? tls.createServer(
        {
          ...TUNNEL_TLS,
          cert: config.tls.cert,
          key: config.tls.key,
          noDelay: true,
          // Bounds the TLS handshake too: an unauthenticated client holds nothing for long.
          handshakeTimeout: config.handshakeTimeoutMs,
        },
        onConnection,
      )
    : net.createServer({ noDelay: true }, onConnection);
  if (config.tls) server.on('tlsClientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });

  return {
    port: (server.address() as net.AddressInfo).port,
    get: (id) => agents.get(id),
    agentIds: () => [...agents.keys()],
    isAgentExit: (ip) => exits.has(sourceKey(ip)),
    close: () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      return closed;
    },
  };
}
