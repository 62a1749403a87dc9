import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import {
  encodeMethodSelection,
  encodeReply,
  encodeUserPassStatus,
  parseGreeting,
  parseRequest,
  parseUserPass,
} from '../src/protocol/socks5.ts';
import { makeSelfSignedCert } from '../src/tunnel/self-signed.ts';

const [role, portArg, caFile] = process.argv.slice(2);

if (role === 'gateway') {
  const dir = mkdtempSync(join(tmpdir(), 'h2-bench-'));
  const pair = makeSelfSignedCert();
  writeFileSync(join(dir, 'cert.pem'), pair.cert);
  let session: http2.ClientHttp2Session | null = null;
  const tunnel = tls.createServer(
    {
      cert: pair.cert,
      key: pair.key,
      ciphers: 'TLS_AES_128_GCM_SHA256',
      // node:http2's server side treats a TLS socket without ALPN "h2" as HTTP/1.1.
      ALPNProtocols: ['h2'],
    },
    (socket) => {
      socket.setNoDelay(true);
      // The gateway is the HTTP/2 client on the connection the agent dialed (only clients open streams).
      session = http2.connect('http://agent', {
        createConnection: () => socket,
        settings: { initialWindowSize: 512 * 1024 },
      });
      session.on('error', (e) => {
        if (process.env.H2_DEBUG) console.error('session error', e);
      });
    },
  );
  tunnel.listen(0, '127.0.0.1');
  const socks = net.createServer({ noDelay: true }, (c) => {
    c.on('error', () => {});
    let buf = Buffer.alloc(0);
    let state = 0;
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (state === 0) {
        const g = parseGreeting(buf);
        if (!g) return;
        buf = buf.subarray(g.length);
        c.write(encodeMethodSelection(g.value.includes(2) ? 2 : 0));
        state = g.value.includes(2) ? 1 : 2;
      }
      if (state === 1) {
        const a = parseUserPass(buf);
        if (!a) return;
        buf = buf.subarray(a.length);
        c.write(encodeUserPassStatus(true));
        state = 2;
      }
      if (state === 2) {
        const r = parseRequest(buf);
        if (!r) return;
        c.off('data', onData);
        c.pause();
        state = 3;
        if (!session) return c.destroy();
        const host = r.value.type === 'ipv6' ? `[${r.value.host}]` : r.value.host;
        const stream = session.request({ ':method': 'CONNECT', ':authority': `${host}:${r.value.port}` });
        stream.on('error', (e) => {
          if (process.env.H2_DEBUG) console.error('stream error', e);
          c.destroy();
        });
        stream.on('response', (h) => {
          if (h[':status'] !== 200) return c.end(encodeReply(5));
          c.write(encodeReply(0));
          c.pipe(stream);
          stream.pipe(c);
          c.resume();
        });
        c.on('close', () => stream.destroy());
      }
    };
    c.on('data', onData);
  });
  socks.listen(0, '127.0.0.1', () => {
    console.log(
      JSON.stringify({
        socksPort: (socks.address() as net.AddressInfo).port,
        tunnelPort: (tunnel.address() as net.AddressInfo).port,
        caFile: join(dir, 'cert.pem'),
      }),
    );
  });
} else if (role === 'agent') {
  const socket = tls.connect({
    host: '127.0.0.1',
    port: Number(portArg),
    ca: readFileSync(caFile!),
    ALPNProtocols: ['h2'],
  });
  socket.setNoDelay(true);
  const server = http2.createServer({ settings: { initialWindowSize: 512 * 1024 } });
  server.on('stream', (stream, headers) => {
    const m = /^\[?([^\]]+)\]?:(\d+)$/.exec(String(headers[':authority']));
    if (!m) return stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
    const t = net.connect({ host: m[1], port: Number(m[2]), noDelay: true });
    t.on('connect', () => {
      stream.respond({ ':status': 200 });
      t.pipe(stream);
      stream.pipe(t);
    });
    t.on('error', () => {
      if (!stream.headersSent) stream.respond({ ':status': 502 }, { endStream: true });
      else stream.destroy();
    });
    stream.on('error', () => t.destroy());
    stream.on('close', () => t.destroy());
  });
  socket.on('secureConnect', () => server.emit('connection', socket));
} else if (role === 'handshakes') {
  // TLS 1.3 handshakes per second at concurrency 1: the floor cost a connection-per-stream tunnel pays per request.
  const ca = readFileSync(caFile!);
  let n = 0;
  const end = Date.now() + 3000;
  const one = () =>
    new Promise<void>((resolve) => {
      const s = tls.connect({ host: '127.0.0.1', port: Number(portArg), ca }, () => {
        n++;
        s.destroy();
        resolve();
      });
      s.on('error', () => resolve());
    });
  while (Date.now() < end) await one();
  console.log(JSON.stringify({ tlsHandshakesPerSecond: Math.round(n / 3) }));
  process.exit(0);
} else {
  console.error('usage: h2-tunnel.ts gateway | agent PORT CAFILE | handshakes PORT CAFILE');
  process.exit(2);
}
