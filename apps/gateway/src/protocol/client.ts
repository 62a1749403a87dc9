import net from 'node:net';
import {
  CMD_CONNECT,
  encodeGreeting,
  encodeRequest,
  encodeUserPass,
  METHOD_NO_AUTH,
  METHOD_USER_PASS,
  parseMethodSelection,
  parseReply,
  parseUserPassStatus,
  REP_SUCCEEDED,
  replyText,
} from './socks5.ts';

/** Why a SOCKS connect failed: `stage` says where, `reply` carries the RFC 1928 code if any. */
export class SocksClientError extends Error {
  override name = 'SocksClientError';
  readonly stage: 'connect' | 'method' | 'auth' | 'reply' | 'timeout';
  readonly reply: number | undefined;
  constructor(stage: SocksClientError['stage'], message: string, reply?: number) {
    super(message);
    this.stage = stage;
    this.reply = reply;
  }
}

export interface SocksConnectOptions {
  proxyHost: string;
  proxyPort: number;
  /** RFC 1929 credentials; without them only "no authentication" is offered. */
  user?: string;
  pwd?: string;
  /** Destination: IP literal or domain name (sent as a name: the proxy resolves it). */
  host: string;
  port: number;
  /** Source address to bind (whitelist tests). */
  localAddress?: string;
  timeoutMs?: number;
}

/**
 * The project's own SOCKS5 client: connects through a proxy and resolves with the socket
 * positioned after the CONNECT reply, or rejects with a `SocksClientError`.
 */
export function socksConnect(opts: SocksConnectOptions): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({
      host: opts.proxyHost,
      port: opts.proxyPort,
      localAddress: opts.localAddress,
    });
    let buf: Buffer = Buffer.alloc(0);
    let stage: 'method' | 'auth' | 'reply' = 'method';
    const timer = setTimeout(
      () => fail(new SocksClientError('timeout', 'SOCKS handshake timed out')),
      opts.timeoutMs ?? 10_000,
    );
    const useAuth = opts.user !== undefined;
    const fail = (err: SocksClientError) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    socket.on('error', (err) => fail(new SocksClientError('connect', err.message)));
    socket.on('close', () =>
      fail(new SocksClientError(stage, `proxy closed the connection during ${stage}`)),
    );
    socket.on('connect', () => {
      socket.write(encodeGreeting(useAuth ? [METHOD_USER_PASS] : [METHOD_NO_AUTH]));
    });
    const onData = (chunk: Buffer) => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      try {
        for (;;) {
          if (stage === 'method') {
            const m = parseMethodSelection(buf);
            if (!m) return;
            buf = buf.subarray(m.length);
            if (m.value !== (useAuth ? METHOD_USER_PASS : METHOD_NO_AUTH)) {
              return fail(new SocksClientError('method', `no acceptable method (0x${m.value.toString(16)})`));
            }
            if (useAuth) {
              socket.write(encodeUserPass(opts.user!, opts.pwd ?? ''));
              stage = 'auth';
            } else {
              socket.write(encodeRequest(CMD_CONNECT, opts.host, opts.port));
              stage = 'reply';
            }
          } else if (stage === 'auth') {
            const s = parseUserPassStatus(buf);
            if (!s) return;
            buf = buf.subarray(s.length);
            if (!s.value) return fail(new SocksClientError('auth', 'authentication failed'));
            socket.write(encodeRequest(CMD_CONNECT, opts.host, opts.port));
            stage = 'reply';
          } else {
            const r = parseReply(buf);
            if (!r) return;
            buf = buf.subarray(r.length);
            if (r.value.code !== REP_SUCCEEDED) {
              return fail(new SocksClientError('reply', replyText(r.value.code), r.value.code));
            }
            clearTimeout(timer);
            socket.removeAllListeners('close');
            socket.removeAllListeners('error');
            socket.removeListener('data', onData);
            if (buf.length) socket.unshift(buf);
            resolve(socket);
            return;
          }
        }
      } catch (err) {
        fail(new SocksClientError(stage, (err as Error).message));
      }
    };
    socket.on('data', onData);
  });
}
