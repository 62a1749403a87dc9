// The HTTP proxy client of the HTTP-proxy benchmark, the twin of the load generator's SOCKS5
// client (lib/socks5.mjs in SOCKS_BENCH): the same callbacks, one shared read buffer (`net`
// `onread`), not pipelined (like curl: CONNECT, then wait for the proxy's answer head).
// `connect` mode tunnels with `CONNECT host:port`; `forward` mode is a plain connection to the
// proxy, ready at once, over which the caller sends an absolute-form request itself.
import net from 'node:net';

export interface HttpProxy {
  host: string;
  port: number;
  /** Basic `Proxy-Authorization`, already encoded, when the URL carried a user. */
  auth?: string;
}

export interface DialHandlers {
  onReady?(sock: net.Socket): void;
  /** `buf` is valid only during the call. */
  onData?(n: number, buf: Buffer): void;
  onEnd?(): void;
  onError?(err: Error): void;
  onClose?(): void;
}

/** Largest CONNECT answer head read before the dial fails. */
const MAX_HEAD = 16 * 1024;
const SHARED = Buffer.allocUnsafe(256 * 1024);

export function isLoopbackHost(h: string): boolean {
  if (h === 'localhost' || h === '::1' || h === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** `http://[user:pass@]127.0.0.1:PORT` (loopback only). */
export function parseHttpProxy(s: string): HttpProxy {
  const u = new URL(s);
  if (u.protocol !== 'http:') throw new Error(`unsupported proxy scheme ${u.protocol} (http:// expected)`);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (!isLoopbackHost(host)) throw new Error(`refusing non-loopback proxy host ${host}`);
  const p: HttpProxy = { host, port: Number(u.port || 8080) };
  if (u.username) {
    const cred = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
    p.auth = Buffer.from(cred, 'utf8').toString('base64');
  }
  return p;
}

/** The `Proxy-Authorization` header line (with its CRLF), or nothing. */
export const authLine = (proxy: HttpProxy): string =>
  proxy.auth ? `Proxy-Authorization: Basic ${proxy.auth}\r\n` : '';

/**
 * Opens a connection to the proxy; in `connect` mode tunnels to dst and calls onReady once the
 * proxy answered 200 (bytes after the answer head go to onData), in `forward` mode calls onReady
 * on the TCP connect. Returns the socket.
 */
export function dial(
  proxy: HttpProxy,
  mode: 'connect' | 'forward',
  dstHost: string,
  dstPort: number,
  h: DialHandlers,
  handshakeTimeoutMs = 15000,
): net.Socket {
  let state: 'connecting' | 'reply' | 'data' = 'connecting';
  let pending: Buffer | null = null;
  let failed = false;
  let timer: NodeJS.Timeout | null = null;
  const authority = dstHost.includes(':') ? `[${dstHost}]:${dstPort}` : `${dstHost}:${dstPort}`;
  const request = Buffer.from(
    `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${authLine(proxy)}\r\n`,
    'latin1',
  );

  const fail = (err: Error) => {
    if (failed) return;
    failed = true;
    if (timer) clearTimeout(timer);
    sock.destroy();
    h.onError?.(err);
  };
  const ready = (rest: Buffer | null) => {
    state = 'data';
    if (timer) clearTimeout(timer);
    timer = null;
    h.onReady?.(sock);
    if (rest?.length) h.onData?.(rest.length, rest);
  };
  const onReply = (chunk: Buffer) => {
    pending = pending?.length ? Buffer.concat([pending, chunk]) : chunk;
    const end = pending.indexOf('\r\n\r\n');
    if (end < 0) {
      if (pending.length > MAX_HEAD) fail(new Error('CONNECT answer head too long'));
      return;
    }
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(pending.toString('latin1', 0, Math.min(end, 64)));
    if (!status) return fail(new Error('bad CONNECT answer'));
    if (status[1] !== '200') return fail(new Error(`CONNECT answered ${status[1]}`));
    const rest = pending.subarray(end + 4);
    pending = null;
    ready(rest);
  };

  const sock = net.connect({
    host: proxy.host,
    port: proxy.port,
    noDelay: true,
    onread: {
      buffer: SHARED,
      callback: (n: number, buf: Uint8Array) => {
        if (state === 'data') {
          h.onData?.(n, buf as Buffer);
          return true;
        }
        onReply(Buffer.from(buf.subarray(0, n))); // copy: SHARED is reused
        return true;
      },
    },
  });
  timer = setTimeout(() => fail(new Error(`handshake timeout (${state})`)), handshakeTimeoutMs);
  sock.on('connect', () => {
    if (mode === 'forward') return ready(null);
    state = 'reply';
    sock.write(request);
  });
  sock.on('end', () => {
    if (state !== 'data') return fail(new Error(`closed by proxy during ${state}`));
    h.onEnd?.();
  });
  sock.on('error', (e) => fail(e));
  sock.on('close', () => {
    if (timer) clearTimeout(timer);
    h.onClose?.();
  });
  return sock;
}
