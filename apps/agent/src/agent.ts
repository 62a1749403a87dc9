import dns from 'node:dns';
import {
  parseAddress,
  REP_GENERAL_FAILURE,
  REP_NOT_ALLOWED,
  replyCodeForError,
} from '@pm/gateway/protocol/socks5';
import {
  type HelloMessage,
  T_HELLO,
  T_OPEN,
  T_REJECT,
  T_WELCOME,
  TUNNEL_VERSION,
  type WelcomeMessage,
} from '@pm/gateway/tunnel/frames';
import { DEFAULT_WINDOW, Mux, type MuxStream, type TunnelTransport } from '@pm/gateway/tunnel/mux';
import { connectTcp, type RawSocket } from '@pm/gateway/tunnel/raw-tcp';
import { type Dialing, dialGateway } from './dial.ts';
import { createBlockList, type DestinationPolicy, isAddressAllowed, isPortAllowed } from './policy.ts';

export interface AgentConfig extends DestinationPolicy {
  gateway: { host: string; port: number };
  key: string;
  /** TLS to the gateway: `ca` (PEM) to trust, `servername` for SNI/verification, `insecure` skips verification. */
  tls?: { ca?: string | Buffer; servername?: string; insecure?: boolean };
  /** False: keep TLS records even where the sealed-record addon is built (tests of the fallback). */
  sealedRecords?: boolean;
  conn?: 'wifi' | 'cell';
  dev?: 'android' | 'other';
  /** Public address override sent in HELLO (devnet synthetic identities; gateways ignore it unless configured to trust it). */
  ipOverride?: string;
  /** Concurrent streams served; further OPENs are answered with a general failure. */
  maxStreams?: number;
  connectTimeoutMs?: number;
  /** Reconnect backoff (exponential with full jitter between half and all of the step). */
  backoffMinMs?: number;
  backoffMaxMs?: number;
  window?: number;
  /** Name resolution (default `dns.lookup`; tests inject names that resolve to private addresses). */
  lookup?: (host: string, callback: (err: NodeJS.ErrnoException | null, address: string) => void) => void;
  pingIntervalMs?: number;
  idleTimeoutMs?: number;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

export interface AgentHandle {
  /** Agent id the gateway assigned, while connected. */
  agentId(): string | undefined;
  isConnected(): boolean;
  /** The current tunnel (diagnostics and tests). */
  tunnel(): Mux | null;
  /** Resolves when the tunnel is up (immediately if it is), rejects after `timeoutMs`. */
  waitConnected(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts an agent: dials the gateway, keeps the tunnel up and serves the streams it is asked for. */
export function startAgent(config: AgentConfig): AgentHandle {
  const blockList = createBlockList(config);
  const maxStreams = config.maxStreams ?? 4096;
  const connectTimeoutMs = config.connectTimeoutMs ?? 10_000;
  const minMs = config.backoffMinMs ?? 500;
  const maxMs = config.backoffMaxMs ?? 30_000;
  const log = config.log ?? (() => {});
  const lookup =
    config.lookup ??
    ((host: string, cb: (err: NodeJS.ErrnoException | null, address: string) => void) =>
      dns.lookup(host, { verbatim: true }, (err, address) => cb(err, address)));
  let attempt = 0;
  let mux: Mux | null = null;
  let agentId: string | undefined;
  let stopped = false;
  let retryTimer: NodeJS.Timeout | null = null;
  let dialing: Dialing | null = null;
  let waiters: (() => void)[] = [];
  const targets = new Set<RawSocket>();

  const scheduleReconnect = () => {
    if (stopped) return;
    const step = Math.min(maxMs, minMs * 2 ** attempt);
    attempt = Math.min(attempt + 1, 30);
    const delay = Math.round(step / 2 + (Math.random() * step) / 2);
    retryTimer = setTimeout(dial, delay);
  };

  const serveOpen = (m: Mux, id: number, payload: Buffer) => {
    if (m.streams.has(id)) return m.destroy(new Error('tunnel: duplicate stream id'));
    const st = m.accept(id);
    if (m.streams.size > maxStreams) return m.answerOpen(st, REP_GENERAL_FAILURE);
    let dest: ReturnType<typeof parseAddress>;
    try {
      dest = parseAddress(payload, 0);
    } catch {
      dest = undefined;
    }
    if (!dest) return m.answerOpen(st, REP_GENERAL_FAILURE);
    const { host, port, type } = dest.value;
    if (type !== 'domain') return connectTarget(m, st, host, port);
    lookup(host, (err, address) => {
      if (st.closed) return;
      if (err) return m.answerOpen(st, replyCodeForError(err));
      connectTarget(m, st, address, port);
    });
  };

  const connectTarget = (m: Mux, st: MuxStream, ip: string, port: number) => {
    if (!isAddressAllowed(blockList, ip) || !isPortAllowed(config, port))
      return m.answerOpen(st, REP_NOT_ALLOWED);
    // Connect to the address that was checked, never to the name again.
    const socket = connectTcp(ip, port, (err) => {
      clearTimeout(timer);
      if (err) return m.answerOpen(st, replyCodeForError(err));
      if (st.closed) {
        socket.destroy();
        return;
      }
      m.answerOpen(st, 0);
      m.attach(st, socket);
    });
    targets.add(socket);
    socket.once('close', () => targets.delete(socket));
    const timer = setTimeout(() => {
      socket.destroy();
      m.answerOpen(st, replyCodeForError({ code: 'ETIMEDOUT' }));
    }, connectTimeoutMs);
  };

  const dial = () => {
    retryTimer = null;
    if (stopped) return;
    dialing = dialGateway(config, connectTimeoutMs, runTunnel, () => {
      dialing = null;
      scheduleReconnect();
    });
  };

  /** Runs the tunnel on a connected (and, with TLS, verified) transport, starting with HELLO. */
  const runTunnel = (socket: TunnelTransport) => {
    dialing = null;
    const m = new Mux(socket, {
      window: config.window ?? DEFAULT_WINDOW,
      pingIntervalMs: config.pingIntervalMs,
      idleTimeoutMs: config.idleTimeoutMs,
      awaitLocalFin: true,
      onControl: (type, id, payload) => {
        if (type === T_OPEN) {
          if (agentId === undefined) return m.destroy(new Error('tunnel: OPEN before WELCOME'));
          return serveOpen(m, id, payload);
        }
        if (type === T_WELCOME) {
          try {
            const w = JSON.parse(payload.toString('utf8')) as WelcomeMessage;
            agentId = w.agentId;
            if (Number.isInteger(w.window) && w.window > 0) m.peerWindow = w.window;
          } catch {
            return m.destroy(new Error('tunnel: malformed WELCOME'));
          }
          attempt = 0;
          log('agent connected', { agentId });
          const list = waiters;
          waiters = [];
          for (const w of list) w();
          return;
        }
        if (type === T_REJECT) {
          log('gateway rejected the agent key', { reason: payload.toString('utf8') });
          // An unknown key will not become known in a second: wait the longest backoff.
          attempt = 30;
          return m.destroy();
        }
        m.destroy(new Error(`tunnel: unexpected frame 0x${type.toString(16)}`));
      },
      onClose: (err) => {
        if (mux === m) {
          mux = null;
          if (agentId !== undefined) log('agent disconnected', { reason: err?.message });
          agentId = undefined;
        }
        scheduleReconnect();
      },
    });
    mux = m;
    const hello: HelloMessage = {
      v: TUNNEL_VERSION,
      key: config.key,
      conn: config.conn ?? 'wifi',
      dev: config.dev ?? 'other',
      window: m.window,
      ...(config.ipOverride ? { ip: config.ipOverride } : {}),
    };
    m.writeFrame(T_HELLO, 0, Buffer.from(JSON.stringify(hello)));
  };

  dial();

  return {
    agentId: () => agentId,
    isConnected: () => agentId !== undefined,
    tunnel: () => mux,
    waitConnected: (timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        if (agentId !== undefined) return resolve();
        const t = setTimeout(() => {
          waiters = waiters.filter((w) => w !== done);
          reject(new Error('agent did not connect in time'));
        }, timeoutMs);
        const done = () => {
          clearTimeout(t);
          resolve();
        };
        waiters.push(done);
      }),
    close: async () => {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      dialing?.cancel();
      mux?.destroy();
      for (const s of targets) s.destroy();
    },
  };
}
