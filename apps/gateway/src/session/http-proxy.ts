import type net from 'node:net';
import { normalizeIp } from '@pm/tunnel';
import type { LeaseEntry } from '../policy/types.ts';
import { encodeAddress, replyText } from '../protocol/socks5.ts';
import {
  admitConnection,
  checkLogin,
  closeSession,
  countOpenResult,
  countOpenTimeout,
  openSession,
  type Refusal,
  startStream,
  takeHandshakeSlot,
} from './connection-steps.ts';
import type { Session, SessionContext } from './socks-session.ts';

/** Largest request head the HTTP proxy reads (request line and headers). */
const MAX_HEAD_BYTES = 16 * 1024;
/** Headers meant for the proxy, never passed on. */
const HOP_HEADERS = new Set(['proxy-authorization', 'proxy-connection', 'connection', 'keep-alive']);

/** What an HTTP proxy request asks for. */
export interface HttpProxyRequest {
  connect: boolean;
  host: string;
  port: number;
  /** Basic `Proxy-Authorization` user and password, when sent. */
  credentials: { user: string; pwd: string } | undefined;
  /** For absolute-form requests: the head rewritten to origin form, for the origin server. */
  originHead: Buffer | undefined;
}

/** Parses a request head (through the blank line); throws a status code (400) on a malformed or unsupported one. */
export function parseHttpProxyHead(head: string): HttpProxyRequest {
  const lines = head.split('\r\n');
  const m = /^([A-Z]+) (\S+) (HTTP\/1\.[01])$/.exec(lines[0] ?? '');
  if (!m) throw 400;
  const [, method, target, version] = m as unknown as [string, string, string, string];
  const headers = lines.slice(1).filter((l) => l.length > 0);
  let credentials: HttpProxyRequest['credentials'];
  for (const h of headers) {
    const colon = h.indexOf(':');
    if (colon <= 0) throw 400;
    if (h.slice(0, colon).trim().toLowerCase() !== 'proxy-authorization') continue;
    const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(h.slice(colon + 1).trim());
    if (!basic) continue;
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const sep = decoded.indexOf(':');
    if (sep > 0) credentials = { user: decoded.slice(0, sep), pwd: decoded.slice(sep + 1) };
  }
  if (method === 'CONNECT') {
    const hp = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]/]+)):(\d{1,5})$/.exec(target);
    const port = Number(hp?.[3]);
    if (!hp || port < 1 || port > 65535) throw 400;
    return { connect: true, host: (hp[1] ?? hp[2])!, port, credentials, originHead: undefined };
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw 400;
  }
  if (url.protocol !== 'http:' || url.username || url.password) throw 400;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const kept = headers.filter((h) => !HOP_HEADERS.has(h.slice(0, h.indexOf(':')).trim().toLowerCase()));
  const originHead = Buffer.from(
    `${method} ${url.pathname}${url.search} ${version}\r\n${kept.join('\r\n')}${kept.length ? '\r\n' : ''}Connection: close\r\n\r\n`,
  );
  return { connect: false, host, port: Number(url.port || 80), credentials, originHead };
}

/** The answer to a refused admission: status, reason and extra header lines. */
const REFUSALS: Record<Refusal, [number, string, string]> = {
  'lease-ended': [403, 'Forbidden', ''],
  'volume-used': [403, 'Forbidden', 'X-Proxy-Error: traffic volume used up\r\n'],
  // The reason names the place (`detail`, header-safe: place-refusal.ts).
  'unknown-place': [403, 'Forbidden', 'X-Proxy-Error: unknown place in the user name\r\n'],
  'agent-offline': [502, 'Bad Gateway', 'X-Proxy-Error: proxy offline\r\n'],
  'lease-share': [502, 'Bad Gateway', 'X-Proxy-Error: too many connections\r\n'],
  'agent-busy': [502, 'Bad Gateway', 'X-Proxy-Error: too many connections\r\n'],
};

function answer(socket: net.Socket, status: number, reason: string, extra = ''): void {
  if (socket.destroyed) return;
  socket.end(`HTTP/1.1 ${status} ${reason}\r\n${extra}Content-Length: 0\r\nConnection: close\r\n\r\n`);
  setTimeout(() => socket.destroy(), 2000).unref();
}

/**
 * One customer connection to an HTTP proxy port: `CONNECT host:port` (HTTPS tunnels) or an
 * absolute-form request (`GET http://host/path`, passed on in origin form with `Connection: close`,
 * one request per connection). Access as on the SOCKS twin: `authPort` unset is the leases' HTTP
 * port (Basic `Proxy-Authorization` with the SOCKS user and password); set, the twin of that
 * no-auth or package port (its whitelist, or its login for a login package port). Missing or
 * wrong credentials: 407 with `Proxy-Authenticate`; a source off the whitelist: 403; no exit or
 * the agent failing: 502 with `X-Proxy-Error`; the agent not answering: 504. Metered and revoked
 * exactly as SOCKS sessions; wrong credentials are slowed down as there, by the same `checkLogin`.
 */
export function handleHttpProxyConnection(socket: net.Socket, ctx: SessionContext, authPort?: number): void {
  const ip = normalizeIp(socket.remoteAddress);
  ctx.metrics.authConnections.inc();
  const slot = takeHandshakeSlot(socket, ip, ctx);
  if (!slot) return;
  let buf: Buffer = Buffer.alloc(0);
  let done = false;
  let session: Session | null = null;
  let timer: NodeJS.Timeout | null = setTimeout(() => {
    timer = null;
    if (!done) {
      done = true;
      answer(socket, 408, 'Request Timeout');
    }
  }, ctx.handshakeTimeoutMs);
  const clearTimer = () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
  const refuse = (status: number, reason: string, extra = '', why = 'http-refused') => {
    done = true;
    clearTimer();
    ctx.metrics.handshakeFailures.inc({ reason: why });
    answer(socket, status, reason, extra);
  };

  const onData = (chunk: Buffer) => {
    if (done) return;
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    const end = buf.indexOf('\r\n\r\n');
    if (end < 0) {
      if (buf.length > MAX_HEAD_BYTES) refuse(431, 'Request Header Fields Too Large');
      return;
    }
    socket.off('data', onData);
    socket.pause();
    const early = buf.subarray(end + 4);
    let req: HttpProxyRequest;
    try {
      req = parseHttpProxyHead(buf.subarray(0, end).toString('latin1'));
    } catch {
      return refuse(400, 'Bad Request', '', 'malformed');
    }
    const challenge = 'Proxy-Authenticate: Basic realm="proxy"\r\n';
    let entry: LeaseEntry | undefined;
    const byLogin = authPort === undefined || ctx.directory.portNeedsCredentials?.(authPort) === true;
    if (byLogin) {
      if (!req.credentials) return refuse(407, 'Proxy Authentication Required', challenge, 'no-credentials');
      const login = { ip, port: authPort, ...req.credentials };
      entry = checkLogin(socket, ctx, slot, login, () =>
        answer(socket, 407, 'Proxy Authentication Required', challenge),
      );
      if (!entry) {
        // The 407 waits out the limiter's delay (as the SOCKS failure status does).
        done = true;
        clearTimer();
        return;
      }
    } else {
      entry = ctx.directory.findByAuthPort(authPort, ip);
      if (!entry) return refuse(403, 'Forbidden', '', 'not-whitelisted');
    }
    relay(entry, req, early);
  };

  const relay = (lease: LeaseEntry, req: HttpProxyRequest, early: Buffer) => {
    const admitted = admitConnection(lease, ctx);
    if ('refused' in admitted) {
      const [status, reason, extra] = REFUSALS[admitted.refused];
      const why = admitted.detail ? `X-Proxy-Error: ${admitted.detail}\r\n` : extra;
      return refuse(status, reason, why, admitted.refused);
    }
    const { mux } = admitted;
    done = true;
    clearTimer();
    const s = openSession(lease, socket, admitted, ctx);
    session = s;
    slot.end();
    const st = mux.open(encodeAddress(req.host, req.port), (code) => {
      clearTimer();
      const ok = countOpenResult(lease.leaseId, code, ctx);
      if (socket.destroyed) {
        if (ok) mux.reset(st);
        return;
      }
      if (!ok) return answer(socket, 502, 'Bad Gateway', `X-Proxy-Error: ${replyText(code)}\r\n`);
      if (req.connect) socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      const first = req.originHead ? Buffer.concat([req.originHead, early]) : early;
      mux.attach(st, socket, first, false);
    });
    startStream(s, st);
    timer = setTimeout(() => {
      timer = null;
      if (!st.onOpenResult) return;
      st.onOpenResult = null;
      mux.reset(st);
      countOpenTimeout(lease.leaseId, ctx);
      answer(socket, 504, 'Gateway Timeout');
    }, ctx.openTimeoutMs);
  };

  socket.on('data', onData);
  socket.on('error', () => {});
  socket.on('end', () => {
    if (!done) refuse(400, 'Bad Request', '', 'eof');
  });
  socket.on('close', () => {
    clearTimer();
    slot.end();
    const s = session;
    if (!s) return;
    closeSession(s, ctx);
  });
}
