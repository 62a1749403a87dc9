import dns from 'node:dns';
import net from 'node:net';
import {
  DEFAULT_WINDOW,
  type HelloMessage,
  Mux,
  type MuxStream,
  parseAddress,
  REP_GENERAL_FAILURE,
  REP_NOT_ALLOWED,
  REP_TTL_EXPIRED,
  replyCodeForError,
  T_HELLO,
  T_OPEN,
  T_REJECT,
  T_RENEW,
  T_WELCOME,
  TUNNEL_VERSION,
  type TunnelTransport,
  type WelcomeMessage,
} from '@pm/tunnel';
import { type Dialing, dialGateway, dialRefusal } from './dial.ts';
import { createEgressGuard, type DestinationPolicy } from './policy.ts';

/**
 * One read buffer for every target socket of the process: a read's callback is done with its chunk
 * (the tunnel's frame writer copies it) before the next read of any socket, and a fresh 64 KiB buffer
 * per read was most of the agent's allocation in a bulk download.
 */
const TARGET_READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

export interface AgentConfig extends DestinationPolicy {
  gateway: { host: string; port: number };
  key: string;
  /**
   * The tunnel is TLS 1.3 and the gateway's certificate is always verified: `ca` (PEM) to trust
   * instead of the system's authorities, `servername` to verify (and send as SNI) instead of the host.
   */
  tls?: { ca?: string | Buffer; servername?: string };
  /** No TLS, to a gateway on a loopback address only (devnet, standalone benchmark, tests). */
  plaintext?: boolean;
  /** Local address the tunnel is dialed from (a host with several; default: the system's choice). */
  localAddress?: string;
  /** Records per direction before the tunnel is renewed and closed (default 2^24; tests lower it). */
  recordLimit?: number;
  conn?: 'wifi' | 'cell';
  dev?: 'android' | 'other';
  /** Public address override sent in HELLO (devnet synthetic identities; gateways ignore it unless configured to trust it). */
  ipOverride?: string;
  /**
   * Concurrent streams served (default 4096), told to the gateway in HELLO so that it never asks for
   * more; an OPEN past it is answered with a general failure.
   */
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

/** A PING period a gateway may ask for: 5 s to 10 min (anything else is ignored). */
function validPing(ms: unknown): ms is number {
  return Number.isInteger(ms) && (ms as number) >= 5_000 && (ms as number) <= 600_000;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * Starts an agent: dials the gateway, keeps the tunnel up and serves the streams it is asked for.
 * Throws when asked for a plaintext tunnel to a gateway that is not on loopback.
 */
export function startAgent(config: AgentConfig): AgentHandle {
  const refusal = dialRefusal(config);
  if (refusal) throw new Error(`agent: ${refusal}`);
  const guard = createEgressGuard(config);
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
  /** A tunnel connected but not yet welcomed (the first, a reconnect or a renewal). */
  let next: Mux | null = null;
  /** Tunnels that a renewal replaced: they serve their streams until the gateway closes them. */
  const retiring = new Set<Mux>();
  let waiters: (() => void)[] = [];
  const targets = new Set<net.Socket>();

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
    if (type !== 'domain') return connectTarget(m, st, host, port, connectTimeoutMs);
    // One deadline for the name and the connection: the gateway waits a little longer, and an OPEN
    // it sees unanswered is charged to the agent (docs/gateway.md "Failure classes"), so a name
    // whose servers never answer must end here, as the target's timeout.
    const deadline = Date.now() + connectTimeoutMs;
    const timer = setTimeout(() => m.answerOpen(st, REP_TTL_EXPIRED), connectTimeoutMs).unref();
    try {
      lookup(host, (err, address) => {
        clearTimeout(timer);
        if (st.closed) return;
        if (err) return m.answerOpen(st, replyCodeForError(err));
        connectTarget(m, st, address, port, Math.max(1, deadline - Date.now()));
      });
    } catch (err) {
      // A name Node refuses outright (a NUL byte in it) throws here: the customer's bad target.
      clearTimeout(timer);
      m.answerOpen(st, replyCodeForError(err));
    }
  };

  const connectTarget = (m: Mux, st: MuxStream, ip: string, port: number, timeoutMs: number) => {
    if (!guard.isPortAllowed(port) || !guard.isAllowed(ip)) return m.answerOpen(st, REP_NOT_ALLOWED);
    // Connect to the address that was checked, never to the name again (an address is not looked up).
    // Reads land in the process's one read buffer (Node's `onread`), handed to the stream's relay.
    let relay: ((chunk: Buffer) => void) | null = null;
    const socket = net.connect({
      host: ip,
      port,
      allowHalfOpen: true,
      noDelay: true,
      onread: {
        buffer: TARGET_READ_BUFFER,
        callback: (n: number) => {
          relay?.(TARGET_READ_BUFFER.subarray(0, n));
          return true;
        },
      },
    });
    const onError = (err: Error) => {
      clearTimeout(timer);
      m.answerOpen(st, replyCodeForError(err));
    };
    socket.once('error', onError);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('error', onError);
      if (st.closed) {
        socket.destroy();
        return;
      }
      m.answerOpen(st, 0);
      relay = m.attach(st, socket, undefined, false, true);
    });
    targets.add(socket);
    socket.once('close', () => targets.delete(socket));
    const timer = setTimeout(() => {
      socket.destroy();
      m.answerOpen(st, replyCodeForError({ code: 'ETIMEDOUT' }));
    }, timeoutMs);
  };

  /** Dials a tunnel: the first, a reconnect, or a renewal while the current one still serves. */
  const dial = () => {
    retryTimer = null;
    if (stopped || dialing) return;
    dialing = dialGateway(config, connectTimeoutMs, runTunnel, (err) => {
      dialing = null;
      // A certificate the gateway's name or address is not in lands here too (ERR_TLS_CERT_ALTNAME_INVALID).
      log('gateway dial failed', { error: err.message, code: (err as NodeJS.ErrnoException).code });
      nextFailed();
    });
  };

  /** The tunnel being set up failed: reconnect, or retry the renewal while the current one serves. */
  const nextFailed = () => {
    if (!mux) scheduleReconnect();
    else if (!stopped && !retryTimer) retryTimer = setTimeout(dial, maxMs);
  };

  /** The gateway asked for a fresh tunnel, or ours passed half its record budget: dial one. */
  const renew = () => {
    if (!retryTimer && !next) dial();
  };

  /**
   * Runs a tunnel on a connected (and, with TLS, verified) transport, starting with HELLO. At its
   * WELCOME it becomes the current tunnel; one it replaced serves its streams until the gateway
   * closes it.
   */
  const runTunnel = (socket: TunnelTransport) => {
    dialing = null;
    let welcomed = false;
    const welcomeTimer = setTimeout(
      () => m.destroy(new Error('tunnel: no WELCOME in time')),
      connectTimeoutMs,
    );
    const m = new Mux(socket, {
      window: config.window ?? DEFAULT_WINDOW,
      pingIntervalMs: config.pingIntervalMs,
      idleTimeoutMs: config.idleTimeoutMs,
      recordLimit: config.recordLimit,
      awaitLocalFin: true,
      // Until WELCOME: the gateway's answer to HELLO and nothing else; no PING of ours either.
      preAuth: true,
      onRenewDue: renew,
      onControl: (type, id, payload) => {
        if (type === T_OPEN) {
          if (!welcomed) return m.destroy(new Error('tunnel: OPEN before WELCOME'));
          return serveOpen(m, id, payload);
        }
        if (type === T_RENEW && welcomed) return renew();
        if (type === T_WELCOME && !welcomed) {
          try {
            const w = JSON.parse(payload.toString('utf8')) as WelcomeMessage;
            if (Number.isInteger(w.window) && w.window > 0) m.peerWindow = w.window;
            // The gateway's PING period, unless this agent was given its own.
            const pingMs = w.pingMs;
            if (
              config.pingIntervalMs === undefined &&
              config.idleTimeoutMs === undefined &&
              validPing(pingMs)
            )
              m.setPingInterval(pingMs);
            agentId = w.agentId;
            // The exit and the gateway (as named and as dialed) are never destinations; a new
            // tunnel often means a new network, so the interfaces are read again too.
            guard.setTunnelPeers({
              exit: typeof w.exit === 'string' ? [w.exit] : [],
              gateway: [...stringList(w.gateway), ...(socket.remoteAddress ? [socket.remoteAddress] : [])],
            });
            guard.refreshInterfaces();
          } catch {
            return m.destroy(new Error('tunnel: malformed WELCOME'));
          }
          welcomed = true;
          next = null;
          clearTimeout(welcomeTimer);
          m.authenticated();
          if (mux) retiring.add(mux);
          mux = m;
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
        clearTimeout(welcomeTimer);
        retiring.delete(m);
        if (!welcomed) {
          if (next === m) next = null;
          return nextFailed();
        }
        if (mux !== m) return;
        mux = null;
        log('agent disconnected', { reason: err?.message });
        agentId = undefined;
        // A renewal under way becomes the tunnel; else reconnect.
        if (!dialing && !next) scheduleReconnect();
      },
    });
    const hello: HelloMessage = {
      v: TUNNEL_VERSION,
      key: config.key,
      conn: config.conn ?? 'wifi',
      dev: config.dev ?? 'other',
      window: m.window,
      maxStreams,
      ...(config.ipOverride ? { ip: config.ipOverride } : {}),
    };
    next = m;
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
      next?.destroy();
      mux?.destroy();
      for (const m of retiring) m.destroy();
      for (const s of targets) s.destroy();
    },
  };
}
