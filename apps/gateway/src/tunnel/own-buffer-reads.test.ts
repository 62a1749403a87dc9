import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import tls from 'node:tls';
import { readIntoOwnBuffer } from './own-buffer-reads.ts';
import { makeSelfSignedCert } from './self-signed.ts';

const cert = makeSelfSignedCert();

/** Bytes in which every 4-byte word holds its own offset, so a loss, a reorder or an overwrite shows. */
function pattern(bytes: number): Buffer {
  const b = Buffer.alloc(bytes);
  for (let i = 0; i + 4 <= bytes; i += 4) b.writeUInt32BE(i, i);
  return b;
}

type Side = 'accepted' | 'dialed';

/** A connected pair over loopback, plain or TLS; `reader` is the side under test. */
async function pair(
  secure: boolean,
  readerSide: Side,
): Promise<{ reader: net.Socket; writer: net.Socket; close: () => void }> {
  const server = secure ? tls.createServer({ cert: cert.cert, key: cert.key }) : net.createServer();
  const accepted = new Promise<net.Socket>((r) => server.once(secure ? 'secureConnection' : 'connection', r));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  const dialed = secure
    ? tls.connect({ host: '127.0.0.1', port, ca: cert.cert })
    : net.connect({ host: '127.0.0.1', port });
  await new Promise<void>((r) => dialed.once(secure ? 'secureConnect' : 'connect', () => r()));
  const other = await accepted;
  const [reader, writer] = readerSide === 'accepted' ? [other, dialed] : [dialed, other];
  return {
    reader,
    writer,
    close: () => {
      reader.destroy();
      writer.destroy();
      server.close();
    },
  };
}

/** Reads the whole stream through `readIntoOwnBuffer`, copying each chunk as the contract asks. */
async function readAll(socket: net.Socket): Promise<{ data: Buffer; buffers: Set<ArrayBufferLike> }> {
  const parts: Buffer[] = [];
  const buffers = new Set<ArrayBufferLike>();
  const ended = new Promise<void>((r) => socket.once('end', () => r()));
  assert.equal(
    readIntoOwnBuffer(socket, (chunk) => {
      buffers.add(chunk.buffer);
      parts.push(Buffer.from(chunk));
    }),
    true,
    'own-buffer reads are available on this Node',
  );
  await ended;
  return { data: Buffer.concat(parts), buffers };
}

for (const secure of [false, true]) {
  for (const side of ['accepted', 'dialed'] as const) {
    test(`${secure ? 'TLS' : 'plain'} ${side} socket: every byte arrives through one reused buffer, then 'end'`, async () => {
      const { reader, writer, close } = await pair(secure, side);
      try {
        const payload = pattern(2_000_000);
        const got = readAll(reader);
        for (let o = 0; o < payload.length; o += 300_000) writer.write(payload.subarray(o, o + 300_000));
        writer.end();
        const { data, buffers } = await got;
        assert.equal(data.length, payload.length);
        assert.ok(data.equals(payload), 'the bytes read equal the bytes sent');
        assert.equal(buffers.size, 1, 'every read landed in the same buffer');
      } finally {
        close();
      }
    });
  }
}

test('bytes the socket had buffered before the switch are handed over first', async () => {
  const { reader, writer, close } = await pair(true, 'accepted');
  try {
    const first = Buffer.from('first bytes, read before the switch;');
    const buffered = new Promise<void>((r) => reader.once('readable', () => r()));
    writer.write(first);
    await buffered;
    assert.ok(reader.readableLength > 0, 'the socket holds read bytes');
    const got = readAll(reader);
    writer.end(' then the rest');
    assert.equal((await got).data.toString(), `${first} then the rest`);
  } finally {
    close();
  }
});
