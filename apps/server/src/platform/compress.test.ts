import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify';
import { COMPRESS_MIN_BYTES, compressOnce, pickEncoding, registerCompression } from './compress.ts';

const big = { rows: Array.from({ length: 200 }, (_, i) => ({ id: i, note: 'the same words again' })) };
let app: FastifyInstance;

before(async () => {
  app = Fastify();
  registerCompression(app);
  app.get('/big', async () => big);
  const shared = Buffer.from(JSON.stringify(big));
  app.get('/shared', async (_req, reply) => reply.type('application/json').send(shared));
  app.get('/small', async () => ({ ok: true }));
  app.get('/csv', async (_req, reply) => reply.type('text/csv').send('a,b\n'.repeat(1000)));
  await app.ready();
});
after(async () => {
  await app?.close();
});

/** A request to the bare app's own routes. */
function ask(request: InjectOptions) {
  // raw path: routes this test registers to measure compression, not operations of the contract
  return app.inject(request);
}

test('picks brotli, then gzip, honouring q=0 and *', () => {
  assert.equal(pickEncoding('gzip, deflate, br, zstd'), 'br');
  assert.equal(pickEncoding('gzip'), 'gzip');
  assert.equal(pickEncoding('br;q=0, gzip;q=0.5'), 'gzip');
  assert.equal(pickEncoding('*'), 'br');
  assert.equal(pickEncoding('*;q=0'), undefined);
  assert.equal(pickEncoding('identity'), undefined);
  assert.equal(pickEncoding(undefined), undefined);
});

test('answers above 1 KB go compressed by Accept-Encoding, and say they vary by it', async () => {
  const json = JSON.stringify(big);
  assert.ok(json.length > COMPRESS_MIN_BYTES);
  const br = await ask({ url: '/big', headers: { 'accept-encoding': 'gzip, deflate, br' } });
  assert.equal(br.headers['content-encoding'], 'br');
  assert.equal(br.headers.vary, 'Accept-Encoding');
  assert.ok(br.rawPayload.length < json.length / 5, `${br.rawPayload.length} bytes`);
  assert.deepEqual(JSON.parse(brotliDecompressSync(br.rawPayload).toString()), big);
  const gz = await ask({ url: '/big', headers: { 'accept-encoding': 'gzip' } });
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.deepEqual(JSON.parse(gunzipSync(gz.rawPayload).toString()), big);
  const csv = await ask({ url: '/csv', headers: { 'accept-encoding': 'br' } });
  assert.equal(csv.headers['content-encoding'], 'br');
  const plain = await ask({ url: '/big' });
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.deepEqual(plain.json(), big);
});

test('small answers and HEAD go as they are', async () => {
  const small = await ask({ url: '/small', headers: { 'accept-encoding': 'br' } });
  assert.equal(small.headers['content-encoding'], undefined);
  assert.deepEqual(small.json(), { ok: true });
  const head = await ask({ method: 'HEAD', url: '/big', headers: { 'accept-encoding': 'br' } });
  assert.equal(head.headers['content-encoding'], undefined);
});

test('a Buffer answered again is compressed once per coding; its answers decode to it', async () => {
  const bytes = Buffer.from(JSON.stringify(big));
  const first = compressOnce(bytes, 'br', bytes.length);
  assert.equal(compressOnce(bytes, 'br', bytes.length), first, 'the same Buffer: the kept result');
  assert.notEqual(compressOnce(bytes, 'gzip', bytes.length), first, 'each coding apart');
  assert.notEqual(compressOnce(Buffer.from(bytes), 'br', bytes.length), first, 'another Buffer: its own');
  assert.deepEqual(JSON.parse(brotliDecompressSync(await first).toString()), big);
  for (const encoding of ['br', 'br', 'gzip']) {
    const res = await ask({ url: '/shared', headers: { 'accept-encoding': encoding } });
    assert.equal(res.headers['content-encoding'], encoding);
    const decoded = encoding === 'br' ? brotliDecompressSync(res.rawPayload) : gunzipSync(res.rawPayload);
    assert.deepEqual(JSON.parse(decoded.toString()), big);
  }
});
