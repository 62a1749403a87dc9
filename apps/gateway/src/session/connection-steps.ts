/**
 * The steps every customer connection takes once its entitlement is known, whatever the protocol
 * (SOCKS5 in socks-session.ts, HTTP proxy in http-proxy.ts): admission (lease still running, an
 * exit online, a free stream within the lease's share), registration for revocation and metering,
 * the counting of the agent's answer or its silence, and the final byte flush. Per connection only:
 * nothing here runs per byte.
 */
import type net from 'node:net';
import { MAX_SHARED_LEASES } from '@pm/contracts';
import { failureClassOfReply, type Mux, type MuxStream } from '@pm/tunnel';
import type { LeaseEntry } from '../policy/types.ts';
import type { Session, SessionContext } from './socks-session.ts';

/**
 * Connections one lease may hold on its agent: the whole `limit` for the only lease on the agent
 * (private, static), else a sharer's part (`limit / MAX_SHARED_LEASES`), so that one sharer filling
 * its part leaves every other sharer theirs, however long it holds its connections.
 */
export function streamShare(limit: number, exclusive: boolean | undefined): number {
  return exclusive ? limit : Math.max(1, Math.floor(limit / MAX_SHARED_LEASES));
}

/** The agent a connection of this entitlement goes out through now ('' when none is online). */
export function exitOf(lease: LeaseEntry, ctx: Pick<SessionContext, 'tunnels'>): string {
  if (!lease.resolveAgent) return lease.agentId;
  return (
    lease.resolveAgent((id) => {
      const mux = ctx.tunnels.get(id);
      return mux !== undefined && !mux.closed;
    }) ?? ''
  );
}

/** A handshake's place in its source's bound (`takeHandshakeSlot`). */
export interface HandshakeSlot {
  /** The handshake ended (relaying starts or the socket closes): the slot goes back once no refusal holds it. */
  end(): void;
  /** Keeps the slot taken, even past the socket's close, until the returned function is called. */
  hold(): () => void;
}

/**
 * Takes a handshake slot for the socket's source: a source (IPv4 address, IPv6 /64) holds at most
 * so many handshakes at once, delayed failures included. Without a free slot the socket is
 * destroyed (`source-busy`) and the answer is null; else the slot, given back once: when relaying
 * starts or the socket closes, but not before a delayed refusal's delay is over (`checkLogin`).
 */
export function takeHandshakeSlot(socket: net.Socket, ip: string, ctx: SessionContext): HandshakeSlot | null {
  if (!ctx.limiter.openHandshake(ip)) {
    ctx.metrics.handshakeFailures.inc({ reason: 'source-busy' });
    socket.on('error', () => {});
    socket.destroy();
    return null;
  }
  let taken = true;
  let ended = false;
  let holds = 0;
  ctx.handshaking.add(socket);
  const giveBack = () => {
    if (!taken || !ended || holds > 0) return;
    taken = false;
    ctx.limiter.closeHandshake(ip);
  };
  return {
    end() {
      ctx.handshaking.delete(socket);
      ended = true;
      giveBack();
    },
    hold() {
      holds++;
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        holds--;
        giveBack();
      };
    },
  };
}

/** A login on a door that takes a password; `port` is the package port it came to, unset on the leases' shared ports. */
export interface Login {
  ip: string;
  port: number | undefined;
  user: string;
  pwd: string;
}

/**
 * Checks a login on any door that takes a password (RFC 1929 on SOCKS, Basic `Proxy-Authorization`
 * on the HTTP proxy; the leases' shared ports and the login package ports alike) and answers the
 * running entitlement it opens, or undefined. A success forgets that credential's earlier failures
 * and is never delayed. A failure is counted against the entitlement its user name names (not the
 * right password of a lease that just ended), recorded in the limiter per source and user name,
 * and `refuse` runs after the limiter's delay (on a later tick when there is none). Meanwhile the
 * socket is paused and its handshake slot stays taken even if the client gives up and closes:
 * abandoning a slow refusal must not buy a fresh guess, so a source's guesses are bounded by its
 * slots over the delay. A socket closed meanwhile gets no answer.
 */
export function checkLogin(
  socket: net.Socket,
  ctx: SessionContext,
  slot: HandshakeSlot,
  login: Login,
  refuse: () => void,
): LeaseEntry | undefined {
  const { ip, port, user, pwd } = login;
  const entry =
    port === undefined
      ? ctx.directory.findByCredentials(user, pwd)
      : ctx.directory.findByPortCredentials?.(port, user, pwd);
  if (entry && entry.untilMs > Date.now()) {
    if (ctx.limiter.size > 0) ctx.limiter.succeed(ip, user);
    return entry;
  }
  if (!entry) countAuthFailure(ctx, user, port);
  ctx.metrics.handshakeFailures.inc({ reason: 'bad-credentials' });
  const delayMs = ctx.limiter.fail(ip, user);
  socket.pause();
  const letGo = slot.hold();
  // Unref'd: a node shutting down does not wait for refusals nobody will read.
  setTimeout(() => {
    letGo();
    if (!socket.destroyed) refuse();
  }, delayMs).unref();
  return undefined;
}

/** Why a connection was not admitted (also its `handshakeFailures` reason). */
export type Refusal =
  | 'lease-ended'
  | 'volume-used'
  | 'unknown-place'
  | 'agent-offline'
  | 'lease-share'
  | 'agent-busy';

/**
 * Admits a connection of `lease` to its exit's tunnel, or says why not, counting the refusal for
 * the lease (class `policy`, `agent` or `limit`) and in the request metrics. A package's
 * connections through one agent, all packages together, hold at most one sharer's part of its
 * streams, so a package never crowds out the agent's lease customers.
 */
export function admitConnection(
  lease: LeaseEntry,
  ctx: SessionContext,
): { mux: Mux; agentId: string } | { refused: Refusal; detail?: string } {
  if (lease.untilMs <= Date.now() || (lease.budget && !lease.budget.hasLeft())) {
    ctx.meter.countRequest(lease.leaseId, 'policy');
    return { refused: lease.untilMs <= Date.now() ? 'lease-ended' : 'volume-used' };
  }
  if (lease.placeRefusal !== undefined) {
    ctx.meter.countRequest(lease.leaseId, 'policy');
    return { refused: 'unknown-place', detail: lease.placeRefusal };
  }
  const agentId = exitOf(lease, ctx);
  const mux = ctx.tunnels.get(agentId);
  if (!mux || mux.closed) {
    // No tunnel: the proxy stopped working, the agent's failure.
    ctx.meter.countRequest(lease.leaseId, 'agent');
    ctx.metrics.requests.inc({ result: 'agent-offline' });
    return { refused: 'agent-offline' };
  }
  // Stream limits are the customer's own (their share) or the sharers' together: never the agent's failure.
  const limit = Math.min(ctx.maxStreamsPerAgent, mux.peerMaxStreams);
  const held = lease.isPackage
    ? (ctx.packageExits.get(agentId)?.size ?? 0)
    : (ctx.byLease.get(lease.leaseId)?.size ?? 0);
  const over =
    held >= streamShare(limit, !lease.isPackage && lease.exclusive)
      ? 'lease-share'
      : mux.streams.size >= limit
        ? 'agent-busy'
        : null;
  if (over) {
    ctx.meter.countRequest(lease.leaseId, 'limit');
    ctx.metrics.requests.inc({ result: over });
    return { refused: over };
  }
  return { mux, agentId };
}

function addTo<K>(map: Map<K, Set<Session>>, key: K, s: Session): void {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  set.add(s);
}

function removeFrom<K>(map: Map<K, Set<Session>>, key: K, s: Session): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(s);
  if (set.size === 0) map.delete(key);
}

/** Registers a relayed connection through `agentId` for revocation and the periodic byte flush. */
export function openSession(
  lease: LeaseEntry,
  socket: net.Socket,
  admitted: { mux: Mux; agentId: string },
  ctx: SessionContext,
): Session {
  const s: Session = {
    leaseId: lease.leaseId,
    agentId: admitted.agentId,
    isPackage: lease.isPackage === true,
    budget: lease.budget,
    socket,
    mux: admitted.mux,
    stream: null,
    reportedUp: 0,
    reportedDown: 0,
  };
  ctx.sessions.add(s);
  addTo(ctx.byLease, lease.leaseId, s);
  if (s.isPackage) addTo(ctx.packageExits, s.agentId, s);
  return s;
}

/** The session's stream, opened: it takes its first grant of the volume before any byte moves. */
export function startStream(s: Session, st: MuxStream): void {
  s.stream = st;
  s.budget?.grant(st);
}

/** Forgets a closed connection, reports its last bytes and gives back its unspent grant. */
export function closeSession(s: Session, ctx: SessionContext): void {
  ctx.sessions.delete(s);
  removeFrom(ctx.byLease, s.leaseId, s);
  if (s.isPackage) removeFrom(ctx.packageExits, s.agentId, s);
  flushSessionBytes(s, ctx);
  if (s.budget && s.stream) s.budget.release(s.stream);
}

/** Reports the bytes of a lease's open connections to the meter now (exact counters on request). */
export function flushLeaseBytes(leaseId: string, ctx: SessionContext): void {
  for (const s of ctx.byLease.get(leaseId) ?? []) flushSessionBytes(s, ctx);
}

/** Counts refused credentials against the lease or package they name, if any (never a request). */
function countAuthFailure(ctx: SessionContext, user: string, port?: number): void {
  const owner = ctx.directory.credentialsOwner?.(user, port);
  if (owner !== undefined) ctx.meter.countAuthFailure(owner);
}

/** Counts the agent's answer to an OPEN (reply code `code`); true when it connected. */
export function countOpenResult(leaseId: string, code: number, ctx: SessionContext): boolean {
  const ok = code === 0;
  ctx.meter.countRequest(leaseId, ok ? 'ok' : failureClassOfReply(code));
  if (ok) ctx.metrics.requestsOk.inc();
  else ctx.metrics.requests.inc({ result: `rep-${code}` });
  return ok;
}

/**
 * Counts an OPEN the agent did not answer in time. The agent bounds its own name lookup and
 * connect below this deadline: no answer is its failure.
 */
export function countOpenTimeout(leaseId: string, ctx: SessionContext): void {
  ctx.meter.countRequest(leaseId, 'agent');
  ctx.metrics.requests.inc({ result: 'open-timeout' });
}

/** Reports the bytes relayed since the last call to the meter and the metrics. */
export function flushSessionBytes(s: Session, ctx: SessionContext): void {
  const st = s.stream;
  if (!st) return;
  const up = st.sentBytes - s.reportedUp;
  const down = st.recvBytes - s.reportedDown;
  if (up === 0 && down === 0) return;
  s.reportedUp = st.sentBytes;
  s.reportedDown = st.recvBytes;
  ctx.meter.addBytes(s.leaseId, up, down);
  if (up) ctx.metrics.bytesUp.inc(up);
  if (down) ctx.metrics.bytesDown.inc(down);
}
