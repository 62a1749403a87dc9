/** Raw clients for gateway tests: plain HTTP over a connected socket, a pipelining SOCKS5 client. */
import { connect, type Socket } from 'node:net';
import { encodeGreeting, encodeRequest, encodeUserPass } from '../protocol/socks5.ts';

/** Sends a minimal HTTP/1.0 GET over a connected socket and returns the whole response. */
export function httpGet(socket: Socket, path: string, host = 'x'): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    socket.on('data', (d: Buffer) => parts.push(d));
    socket.on('end', () => resolve(Buffer.concat(parts)));
    socket.on('error', reject);
    socket.write(`GET ${path} HTTP/1.0\r\nHost: ${host}\r\n\r\n`);
  });
}

/** The body of a whole HTTP response. */
export function body(resp: Buffer): Buffer {
  return resp.subarray(resp.indexOf('\r\n\r\n') + 4);
}

/**
 * A client that pipelines the whole SOCKS5 exchange and `request` in one write, before any answer
 * (optionally half-closing at once), and returns everything it receives until the gateway's end.
 */
export async function pipelined(
  socksPort: number,
  cred: { user: string; pwd: string },
  targetPort: number,
  request: string,
  halfClose: boolean,
): Promise<Buffer> {
  const s = connect({ host: '127.0.0.1', port: socksPort, allowHalfOpen: true });
  return new Promise<Buffer>((resolve, reject) => {
    const parts: Buffer[] = [];
    s.on('data', (d: Buffer) => parts.push(d));
    s.on('end', () => {
      s.destroy();
      resolve(Buffer.concat(parts));
    });
    s.on('error', reject);
    const bytes = Buffer.concat([
      encodeGreeting([2]),
      encodeUserPass(cred.user, cred.pwd),
      encodeRequest(1, '127.0.0.1', targetPort),
      Buffer.from(request),
    ]);
    if (halfClose) s.end(bytes);
    else s.write(bytes);
  });
}

/** How a login attempt ended: accepted or not, and how long its answer took after the credentials went out. */
export interface LoginResult {
  ok: boolean;
  /** Whether the gateway answered at all (false: closed without an answer, or none within 10 s). */
  answered: boolean;
  ms: number;
}

/**
 * Where a login client connects from and to: `localAddress` picks its loopback source (127.0.0.2
 * ...); `halfClose` sends its end of file with the credentials; `giveUpMs` closes the connection
 * that long after the credentials went out (an impatient guesser), answered or not.
 */
export interface LoginTarget {
  port: number;
  localAddress?: string;
  halfClose?: boolean;
  giveUpMs?: number;
}

/** Connects and resolves with what arrives until `enough` says so, the close, or 10 s. */
function exchange(
  to: LoginTarget,
  send: (s: Socket, mark: () => void) => void,
  enough: (got: Buffer) => boolean,
): Promise<{ got: Buffer; ms: number }> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port: to.port, localAddress: to.localAddress });
    let got = Buffer.alloc(0);
    let t0 = performance.now();
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.destroy();
      resolve({ got, ms: performance.now() - t0 });
    };
    let timer = setTimeout(finish, 10_000);
    s.on('error', () => {});
    s.on('end', finish);
    s.on('close', finish);
    s.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (enough(got)) finish();
    });
    s.on('connect', () =>
      send(s, () => {
        t0 = performance.now();
        if (to.giveUpMs === undefined) return;
        clearTimeout(timer);
        timer = setTimeout(finish, to.giveUpMs);
      }),
    );
  });
}

/** One RFC 1929 login, greeting and credentials in one write. */
export async function socksLogin(to: LoginTarget, user: string, pwd: string): Promise<LoginResult> {
  const { got, ms } = await exchange(
    to,
    (s, mark) => {
      mark();
      const bytes = Buffer.concat([encodeGreeting([2]), encodeUserPass(user, pwd)]);
      if (to.halfClose) s.end(bytes);
      else s.write(bytes);
    },
    (b) => b.length >= 4,
  );
  return { ok: got.length >= 4 && got[3] === 0, answered: got.length >= 4, ms };
}

/**
 * One absolute-form HTTP proxy request for `http://<target>/` with Basic `Proxy-Authorization`;
 * `ok` when the answer is anything but 407.
 */
export async function httpLogin(
  to: LoginTarget,
  user: string,
  pwd: string,
  target = '127.0.0.1:9',
): Promise<LoginResult & { status: number }> {
  const auth = Buffer.from(`${user}:${pwd}`).toString('base64');
  const head = `GET http://${target}/ HTTP/1.1\r\nHost: ${target}\r\nProxy-Authorization: Basic ${auth}\r\n\r\n`;
  const { got, ms } = await exchange(
    to,
    (s, mark) => {
      mark();
      if (to.halfClose) s.end(head);
      else s.write(head);
    },
    (b) => b.includes('\r\n'),
  );
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(got.toString('latin1'))?.[1] ?? 0);
  return { ok: status !== 0 && status !== 407, answered: status !== 0, ms, status };
}
