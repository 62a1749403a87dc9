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
