import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { dial, parseHttpProxy } from './dial.ts';

/** A dial that never settles fails its test instead of hanging the run. */
const BOUNDED = { timeout: 5000 };

/** A one-connection fake proxy: reads the request head, hands it to `answer`, then echoes. */
async function fakeProxy(
  answer: (head: string, sock: net.Socket) => void,
): Promise<{ port: number; close(): void }> {
  const open = new Set<net.Socket>();
  const server = net.createServer((sock) => {
    open.add(sock);
    sock.on('close', () => open.delete(sock));
    let head = '';
    const onData = (d: Buffer) => {
      head += d.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      sock.off('data', onData);
      answer(head.slice(0, end + 4), sock);
      sock.on('data', (more) => sock.write(more));
    };
    sock.on('data', onData);
    sock.on('error', () => {});
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  // Closing ends the accepted connections too: a test's dial left open would keep the run alive.
  const close = () => {
    server.close();
    for (const sock of open) sock.destroy();
  };
  return { port: (server.address() as net.AddressInfo).port, close };
}

test('parseHttpProxy: Basic credentials from the URL, loopback and http:// only', () => {
  const p = parseHttpProxy('http://bench:p%40ss@127.0.0.1:18080');
  assert.deepEqual(p, { host: '127.0.0.1', port: 18080, auth: Buffer.from('bench:p@ss').toString('base64') });
  assert.equal(parseHttpProxy('http://127.0.0.1:1').auth, undefined);
  assert.throws(() => parseHttpProxy('http://10.0.0.1:8080'), /non-loopback/);
  assert.throws(() => parseHttpProxy('socks5://127.0.0.1:1080'), /http:\/\//);
});

test(
  'dial connect: sends CONNECT with Proxy-Authorization, passes on bytes after the 200 head',
  BOUNDED,
  async () => {
    let seen = '';
    const proxy = await fakeProxy((head, sock) => {
      seen = head;
      sock.write('HTTP/1.1 200 Connection Established\r\n\r\nearly');
    });
    try {
      const got = await new Promise<string>((ok, fail) => {
        let data = '';
        dial(parseHttpProxy(`http://u:p@127.0.0.1:${proxy.port}`), 'connect', '127.0.0.1', 19102, {
          onReady: (s) => s.write('ping'),
          onData: (n, buf) => {
            data += buf.toString('latin1', 0, n);
            if (data === 'earlyping') ok(data);
          },
          onError: fail,
        });
      });
      assert.equal(got, 'earlyping');
      const auth = Buffer.from('u:p').toString('base64');
      assert.equal(
        seen,
        `CONNECT 127.0.0.1:19102 HTTP/1.1\r\nHost: 127.0.0.1:19102\r\nProxy-Authorization: Basic ${auth}\r\n\r\n`,
      );
    } finally {
      proxy.close();
    }
  },
);

test('dial connect: a refusal fails the dial with its status, before onReady', BOUNDED, async () => {
  const proxy = await fakeProxy((_head, sock) =>
    sock.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n'),
  );
  try {
    const err = await new Promise<Error>((ok, fail) => {
      dial(parseHttpProxy(`http://127.0.0.1:${proxy.port}`), 'connect', '127.0.0.1', 19102, {
        onReady: () => fail(new Error('ready on a refusal')),
        onError: ok,
      });
    });
    assert.equal(err.message, 'CONNECT answered 407');
  } finally {
    proxy.close();
  }
});

test('dial forward: ready on the TCP connect, nothing sent for the caller', BOUNDED, async () => {
  let seen = '';
  const proxy = await fakeProxy((head, sock) => {
    seen = head;
    sock.end('HTTP/1.1 200 OK\r\n\r\n');
  });
  try {
    await new Promise<void>((ok, fail) => {
      dial(parseHttpProxy(`http://127.0.0.1:${proxy.port}`), 'forward', '127.0.0.1', 19102, {
        onReady: (s) => s.write('GET http://127.0.0.1:19102/bench HTTP/1.1\r\n\r\n'),
        onEnd: ok,
        onError: fail,
      });
    });
    assert.equal(seen, 'GET http://127.0.0.1:19102/bench HTTP/1.1\r\n\r\n');
  } finally {
    proxy.close();
  }
});
