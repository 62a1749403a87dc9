import type net from 'node:net';
import { type Mux, type MuxStream, normalizeIp } from '@pm/tunnel';
import type { ByteBudget, LeaseDirectory, LeaseEntry, LeaseMeter } from '../policy/types.ts';
import {
  CMD_CONNECT,
  encodeMethodSelection,
  encodeReply,
  encodeUserPassStatus,
  METHOD_NO_ACCEPTABLE,
  METHOD_NO_AUTH,
  METHOD_USER_PASS,
  parseGreeting,
  parseRequest,
  parseUserPass,
  REP_COMMAND_NOT_SUPPORTED,
  REP_GENERAL_FAILURE,
  REP_NOT_ALLOWED,
  REP_TTL_EXPIRED,
  SocksParseError,
} from '../protocol/socks5.ts';
import type { FailureLimiter } from './auth-limiter.ts';
import {
  admitConnection,
  checkLogin,
  closeSession,
  countOpenResult,
  countOpenTimeout,
  openSession,
  startStream,
  takeHandshakeSlot,
} from './connection-steps.ts';
import type { GatewayMetrics } from './metrics.ts';

/** Largest handshake the gateway buffers (greeting 257 + auth 513 + request 262, rounded up). */
const MAX_HANDSHAKE_BYTES = 2048;
const EMPTY = Buffer.alloc(0);

/** A relayed customer connection, tracked for revocation and metering. */
export interface Session {
  leaseId: string;
  /** The agent it goes out through. */
  agentId: string;
  /** A port package's connection (counted in `packageExits`). */
  isPackage: boolean;
  /** The volume its stream spends, when limited. */
  budget: ByteBudget | undefined;
  socket: net.Socket;
  mux: Mux;
  stream: MuxStream | null;
  reportedUp: number;
  reportedDown: number;
}

export interface SessionContext {
  directory: LeaseDirectory;
  meter: LeaseMeter;
  tunnels: { get(agentId: string): Mux | undefined };
  limiter: FailureLimiter;
  metrics: GatewayMetrics;
  handshakeTimeoutMs: number;
  /** Time allowed for the agent to answer an OPEN (its own connect timeout should be shorter). */
  openTimeoutMs: number;
  /** Streams per agent tunnel (lowered to what the agent's HELLO says it serves); see `streamShare`. */
  maxStreamsPerAgent: number;
  /** Live sessions by lease (revocation) and all of them (periodic byte flush). */
  sessions: Set<Session>;
  byLease: Map<string, Set<Session>>;
  /** Package connections by the agent they go out through (its packages' stream share, exclusivity). */
  packageExits: Map<string, Set<Session>>;
  /** Handshakes in progress (sockets not yet relaying), for shutdown. */
  handshaking: Set<net.Socket>;
}

/**
 * Runs the SOCKS5 server side of one customer connection: greeting, RFC 1929 (or the no-auth
 * whitelist check when `noAuthPort` is set), CONNECT, then the relay through the lease's agent.
 * Every path ends with the socket destroyed (or ended and then closed by the peer or the timer).
 */
export function handleSocksConnection(socket: net.Socket, ctx: SessionContext, noAuthPort?: number): void {
  const ip = normalizeIp(socket.remoteAddress);
  const peerIp = () => ip;
  (noAuthPort === undefined ? ctx.metrics.authConnections : ctx.metrics.noAuthConnections).inc();
  const slot = takeHandshakeSlot(socket, ip, ctx);
  if (!slot) return;
  /** `refusing`: wrong credentials, their answer waiting out the limiter's delay. */
  let state: 'greeting' | 'auth' | 'refusing' | 'request' | 'opening' | 'relay' | 'done' = 'greeting';
  let buf: Buffer = EMPTY;
  let entry: LeaseEntry | undefined;
  let session: Session | null = null;
  /** The client's end of file came while the agent was connecting (the relay must send its FIN). */
  let endedEarly = false;
  let timer: NodeJS.Timeout | null = setTimeout(() => {
    timer = null;
    // Already refused (our FIN sent) but the client keeps its side open: drop it now.
    if (state === 'done') socket.destroy();
    else if (state !== 'relay') fail('timeout');
  }, ctx.handshakeTimeoutMs);

  const clearTimer = () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
  /** Ends the handshake: optional last words, then close. */
  const fail = (reason: string, reply?: Buffer) => {
    if (state === 'done' || state === 'refusing') return;
    state = 'done';
    ctx.metrics.handshakeFailures.inc({ reason });
    if (reply && !socket.destroyed) {
      socket.end(reply);
      // The client should close after our FIN; if it does not, the timer (still set) destroys it.
      if (!timer) timer = setTimeout(() => socket.destroy(), 2000);
    } else {
      socket.destroy();
    }
  };

  const onData = (chunk: Buffer) => {
    if (state === 'done' || state === 'refusing') return;
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    // While the agent connects, bytes after CONNECT wait here for the relay: reading on saves the
    // socket a readStop and a readStart per request; past a handshake's worth it pauses.
    if (state === 'opening') {
      if (buf.length > MAX_HANDSHAKE_BYTES) socket.pause();
    } else if (buf.length > MAX_HANDSHAKE_BYTES) {
      return fail('oversized');
    } else {
      try {
        step();
      } catch (err) {
        if (err instanceof SocksParseError) return fail('malformed');
        throw err;
      }
    }
  };

  const step = () => {
    for (;;) {
      if (state === 'greeting') {
        const g = parseGreeting(buf);
        if (!g) return;
        buf = buf.subarray(g.length);
        if (noAuthPort !== undefined && !ctx.directory.portNeedsCredentials?.(noAuthPort)) {
          entry = ctx.directory.findByAuthPort(noAuthPort, peerIp());
          if (!entry || !g.value.includes(METHOD_NO_AUTH)) {
            return fail(entry ? 'no-method' : 'not-whitelisted', encodeMethodSelection(METHOD_NO_ACCEPTABLE));
          }
          socket.write(encodeMethodSelection(METHOD_NO_AUTH));
          state = 'request';
        } else {
          if (!g.value.includes(METHOD_USER_PASS)) {
            return fail('no-method', encodeMethodSelection(METHOD_NO_ACCEPTABLE));
          }
          socket.write(encodeMethodSelection(METHOD_USER_PASS));
          state = 'auth';
        }
      } else if (state === 'auth') {
        const a = parseUserPass(buf);
        if (!a) return;
        buf = buf.subarray(a.length);
        const login = { ip, port: noAuthPort, user: a.value.user, pwd: a.value.pwd };
        entry = checkLogin(socket, ctx, slot, login, () => {
          state = 'done';
          socket.end(encodeUserPassStatus(false));
          timer = setTimeout(() => socket.destroy(), 2000);
        });
        if (!entry) {
          // The delay replaces the handshake timeout; a half-close meanwhile still gets the answer.
          state = 'refusing';
          clearTimer();
          return;
        }
        socket.write(encodeUserPassStatus(true));
        state = 'request';
      } else if (state === 'request') {
        const r = parseRequest(buf);
        if (!r) return;
        const address = buf.subarray(3, r.length);
        buf = buf.subarray(r.length);
        return connect(r.value.command, address);
      } else {
        return;
      }
    }
  };

  const connect = (command: number, address: Buffer) => {
    const lease = entry!;
    if (command !== CMD_CONNECT) return fail('command', encodeReply(REP_COMMAND_NOT_SUPPORTED));
    const admitted = admitConnection(lease, ctx);
    if ('refused' in admitted) {
      const { refused } = admitted;
      // Refused by a rule (not the exit failing): "connection not allowed by ruleset".
      const policy = refused === 'lease-ended' || refused === 'volume-used' || refused === 'unknown-place';
      return fail(refused, encodeReply(policy ? REP_NOT_ALLOWED : REP_GENERAL_FAILURE));
    }
    const { mux } = admitted;
    state = 'opening';
    clearTimer();
    session = openSession(lease, socket, admitted, ctx);
    slot.end();
    const st = mux.open(Buffer.from(address), (code) => {
      clearTimer();
      const ok = countOpenResult(lease.leaseId, code, ctx);
      if (socket.destroyed) {
        if (ok) mux.reset(st);
        return;
      }
      // The relay reads from here on; bytes after the CONNECT go first.
      socket.off('data', onData);
      const early = buf;
      buf = EMPTY;
      if (!ok) {
        state = 'done';
        socket.end(encodeReply(code));
        timer = setTimeout(() => socket.destroy(), 2000);
        return;
      }
      state = 'relay';
      socket.write(encodeReply(0));
      // Bytes sent after the CONNECT go first, then an end of file that came meanwhile (the socket
      // has emitted 'end' already; unshifting bytes after it would lose them).
      mux.attach(st, socket, early, endedEarly);
    });
    startStream(session, st);
    timer = setTimeout(() => {
      timer = null;
      if (state !== 'opening') return;
      // The agent did not answer in time: give up on the stream and tell the customer.
      st.onOpenResult = null;
      mux.reset(st);
      countOpenTimeout(lease.leaseId, ctx);
      state = 'done';
      socket.end(encodeReply(REP_TTL_EXPIRED));
      timer = setTimeout(() => socket.destroy(), 2000);
    }, ctx.openTimeoutMs);
  };

  socket.on('data', onData);
  socket.on('end', () => {
    if (state === 'opening') endedEarly = true;
    // The customer half-closed before its CONNECT was answered: nothing more can come.
    if (state === 'greeting' || state === 'auth' || state === 'request') fail('eof');
    else if (state === 'done') socket.destroy();
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    clearTimer();
    slot.end();
    const s = session;
    if (!s) return;
    if (state === 'opening' && s.stream) {
      // The customer left before the agent answered: abort the stream. Not the proxy's failure.
      const st = s.stream;
      if (st.onOpenResult) {
        st.onOpenResult = null;
        ctx.meter.countRequest(s.leaseId, 'ok');
        s.mux.reset(st);
      }
    }
    closeSession(s, ctx);
    // The agent or its tunnel died under a relayed connection: that request failed after all.
    if (state === 'relay' && s.stream?.end === 'tunnel') ctx.meter.countFailureAfterSuccess(s.leaseId);
  });
}
