import net from 'node:net';
import tls from 'node:tls';
import type { AgentRegistry } from '../policy/types.ts';
import {
  type HelloMessage,
  T_HELLO,
  T_REJECT,
  T_WELCOME,
  TUNNEL_VERSION,
  type WelcomeMessage,
} from './frames.ts';
import { DEFAULT_WINDOW, Mux, type TunnelTransport } from './mux.ts';
import { RawServer, type RawSocket } from './raw-tcp.ts';
import { sealedAccept } from './sealed-handshake.ts';
import { sealedRecordsAddon } from './sealed-records.ts';

/** AES-128-GCM first: the cheapest AEAD on CPUs with AES instructions (our bench and servers). */
export const TLS_CIPHERS = `TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:${tls.DEFAULT_CIPHERS}`;

export interface TunnelServerConfig {
  host: string;
  port: number;
  /** PEM certificate and key: the tunnel is TLS when given. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** False: keep TLS records even where the sealed-record addon is built (tests of the fallback). */
  sealedRecords?: boolean;
  registry: AgentRegistry;
  /** Time allowed from TCP accept to a verified HELLO. */
  handshakeTimeoutMs: number;
  /** Honour the agent's `ip` override in HELLO (devnet synthetic identities). */
  trustAgentIp?: boolean;
  window?: number;
  pingIntervalMs?: number;
  idleTimeoutMs?: number;
  onAgentsChanged?: (online: number) => void;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

export interface TunnelServer {
  port: number;
  /** The live tunnel of an agent, if it is connected to this node. */
  get(agentId: string): Mux | undefined;
  agentIds(): string[];
  close(): Promise<void>;
}

/** Strips the IPv4-mapped prefix so whitelists and logs see plain IPv4. */
export function normalizeIp(ip: string | undefined): string {
  if (!ip) return '';
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

/** Starts the agents' tunnel endpoint: authenticates HELLO with the registry and keeps one tunnel per agent. */
export async function startTunnelServer(config: TunnelServerConfig): Promise<TunnelServer> {
  const agents = new Map<string, Mux>();
  const sockets = new Set<{ destroy(): unknown }>();
  const log = config.log ?? (() => {});
  const window = config.window ?? DEFAULT_WINDOW;

  /** Runs the tunnel on a connection whose TLS (if any) is up; `timer`, set at accept, bounds the wait for HELLO. */
  const onSocket = (socket: TunnelTransport, timer: NodeJS.Timeout) => {
    let agentId: string | undefined;
    let helloSeen = false;
    const mux: Mux = new Mux(socket, {
      window,
      pingIntervalMs: config.pingIntervalMs,
      idleTimeoutMs: config.idleTimeoutMs,
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
            if (Number.isInteger(hello.window) && hello.window > 0) mux.peerWindow = hello.window;
            const previous = agents.get(id);
            agents.set(id, mux);
            previous?.destroy(new Error('replaced by a new tunnel'));
            const ip = config.trustAgentIp && hello.ip ? hello.ip : normalizeIp(socket.remoteAddress);
            const welcome: WelcomeMessage = { agentId: id, window };
            mux.writeFrame(T_WELCOME, 0, Buffer.from(JSON.stringify(welcome)));
            config.registry.connected(id, {
              ip,
              conn: hello.conn === 'cell' ? 'cell' : 'wifi',
              dev: hello.dev === 'android' ? 'android' : 'other',
            });
            config.onAgentsChanged?.(agents.size);
            log('agent connected', { agentId: id, ip });
          },
          (err: unknown) => mux.destroy(err instanceof Error ? err : new Error(String(err))),
        );
      },
      onClose: (err) => {
        clearTimeout(timer);
        if (agentId && agents.get(agentId) === mux) {
          agents.delete(agentId);
          config.registry.disconnected(agentId);
          config.onAgentsChanged?.(agents.size);
          log('agent disconnected', { agentId, reason: err?.message });
        }
      },
    });
  };

  /** A net.Socket or TLS socket from Node's servers: the mux runs on it once its TLS is up. */
  const onNodeSocket = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    onSocket(
      socket,
      setTimeout(() => socket.destroy(), config.handshakeTimeoutMs),
    );
  };

  const native = config.tls && config.sealedRecords !== false ? sealedRecordsAddon() : null;
  const listener =
    native && config.tls ? await listenSealed(config.tls, native) : await listenNode(config, onNodeSocket);

  /** TLS handshakes over raw sockets, handed over to sealed records where the agent can (`sealed-handshake.ts`). */
  async function listenSealed(
    pem: NonNullable<TunnelServerConfig['tls']>,
    addon: NonNullable<typeof native>,
  ) {
    const context = tls.createSecureContext({ cert: pem.cert, key: pem.key, ciphers: TLS_CIPHERS });
    const server = new RawServer((raw: RawSocket) => {
      sockets.add(raw);
      raw.once('close', () => sockets.delete(raw));
      const timer = setTimeout(() => raw.destroy(), config.handshakeTimeoutMs);
      sealedAccept(raw, context, addon).then(
        (socket) => (raw.destroyed ? socket.destroy() : onSocket(socket, timer)),
        () => {
          clearTimeout(timer);
          raw.destroy();
        },
      );
    });
    const port = await server.listen(config.port, config.host);
    return { port, close: () => server.close() };
  }

  return {
    port: listener.port,
    get: (id) => agents.get(id),
    agentIds: () => [...agents.keys()],
    close: () => {
      const closed = listener.close();
      for (const s of sockets) s.destroy();
      return closed;
    },
  };
}

/** Node's TLS or plain server, for gateways without the sealed-record addon and plain tunnels. */
async function listenNode(config: TunnelServerConfig, onSocket: (socket: net.Socket) => void) {
  const server = config.tls
    ? tls.createServer(
        { cert: config.tls.cert, key: config.tls.key, noDelay: true, ciphers: TLS_CIPHERS },
        onSocket,
      )
    : net.createServer({ noDelay: true }, onSocket);
  if (config.tls) {
    server.on('tlsClientError', (_err, socket) => socket.destroy());
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
