import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { brotliDecompressSync } from 'node:zlib';
import { createTestApp, type TestApp } from '../test/app.ts';

let t: TestApp;

before(async () => {
  t = await createTestApp('compress', { payments: false });
});
after(async () => {
  await t?.close();
});

test('the API answers brotli above 1 KB (the OpenAPI document), plain below (a health check)', async () => {
  // raw path: the OpenAPI document is served beside the contract, not as an operation of it
  const doc = await t.app.inject({
    url: '/openapi.json',
    headers: { 'accept-encoding': 'gzip, deflate, br' },
  });
  assert.equal(doc.statusCode, 200);
  assert.equal(doc.headers['content-encoding'], 'br');
  assert.ok(JSON.parse(brotliDecompressSync(doc.rawPayload).toString()).paths['/agents']);
  // raw path: /healthz is outside the contract
  const health = await t.app.inject({ url: '/healthz', headers: { 'accept-encoding': 'br' } });
  assert.equal(health.statusCode, 200);
  assert.equal(health.headers['content-encoding'], undefined);
});
