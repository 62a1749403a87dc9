import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { type TEnvironment, ZEnvironmentsFile } from '@pm/contracts';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildWebApp } from './web.ts';

const INDEX =
  '<!doctype html><html><head><script type="module" src="/assets/app-1a2b.js"></script></head><body></body></html>';
const environment: TEnvironment = {
  name: 'local',
  origins: ['http://127.0.0.1:5173'],
  apiUrl: 'http://127.0.0.1:8080',
  portsApiUrl: 'http://127.0.0.1:8080',
  issuer: 'http://127.0.0.1:9000',
  clientId: 'web',
  audience: 'https://api.market.test',
  siteUrl: 'http://127.0.0.1:5173/',
  support: { email: 'support@example.test', messenger: '@support', messengerUrl: 'https://t.me/support' },
  termsVersion: 3,
};

/** An empty zip archive: its end-of-central-directory record alone. */
const ZIP_BYTES = Buffer.from([0x50, 0x4b, 0x05, 0x06, ...new Array<number>(18).fill(0)]);

let root: string;
let web: FastifyInstance;

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'pm-web-'));
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), INDEX);
  writeFileSync(join(root, 'assets', 'app-1a2b.js'), 'console.log("app");');
  writeFileSync(join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  mkdirSync(join(root, 'downloads'));
  writeFileSync(join(root, 'downloads', 'addon.zip'), ZIP_BYTES);
  // What the build writes beside each text file (apps/web/vite.config.ts).
  for (const name of ['index.html', 'assets/app-1a2b.js']) {
    const body = name === 'index.html' ? INDEX : 'console.log("app");';
    writeFileSync(join(root, `${name}.br`), brotliCompressSync(body));
    writeFileSync(join(root, `${name}.gz`), gzipSync(body));
  }
  web = await buildWebApp({
    root,
    environments: [environment],
    logLevel: 'silent',
    legal: { terms: '# Our terms\n\nRefunds as the FAQ says.' },
  });
});
after(async () => {
  await web?.close();
  rmSync(root, { recursive: true, force: true });
});

/** A request to the web listener. */
function ask(request: InjectOptions) {
  // raw path: the web listener serves the built app's files and client routes, not contract operations
  return web.inject(request);
}

describe('web listener', () => {
  test('client routes get index.html, not cached, with security headers', async () => {
    for (const url of ['/', '/my/history', '/charges/abc123', '/bigadmin?tab=2']) {
      const res = await ask({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.body, INDEX, url);
      assert.match(String(res.headers['content-type']), /text\/html/);
      assert.equal(res.headers['cache-control'], 'no-cache');
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /object-src 'none'/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.match(csp, /connect-src 'self' http:\/\/127\.0\.0\.1:8080 http:\/\/127\.0\.0\.1:9000/);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
    }
  });

  test('client routes with dots in a parameter get index.html, loaded or reloaded', async () => {
    const urls = ['/my/history-details/1.2.3.4', '/my/history-details/2001:db8::1', '/my/10.0.0.1?tab=2'];
    for (const url of [...urls, '/shop/id.with.dots', '/charges/tx.1.json']) {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await ask({ method, url, headers: { accept: 'text/html' } });
        assert.equal(res.statusCode, 200, `${method} ${url}`);
        assert.match(String(res.headers['content-type']), /text\/html/, url);
        if (method === 'GET') assert.equal(res.body, INDEX, url);
      }
    }
    const missing = await ask({ method: 'GET', url: '/assets/missing.js' });
    assert.equal(missing.statusCode, 404);
  });

  test('assets are served with a long immutable cache; a missing asset or file is a 404', async () => {
    const asset = await ask({ method: 'GET', url: '/assets/app-1a2b.js' });
    assert.equal(asset.statusCode, 200);
    assert.equal(asset.body, 'console.log("app");');
    assert.match(String(asset.headers['cache-control']), /max-age=31536000.*immutable/);
    assert.equal((await ask({ method: 'GET', url: '/favicon.svg' })).statusCode, 200);
    const missing = await ask({ method: 'GET', url: '/assets/gone-0000.js' });
    assert.equal(missing.statusCode, 404);
    assert.doesNotMatch(String(missing.headers['cache-control']), /immutable/);
    assert.equal((await ask({ method: 'GET', url: '/robots.txt' })).statusCode, 404);
  });

  test('a download is sent as itself (application/zip); a missing one is a 404, never the app', async () => {
    const zip = await ask({ method: 'GET', url: '/downloads/addon.zip' });
    assert.equal(zip.statusCode, 200);
    assert.equal(zip.headers['content-type'], 'application/zip');
    assert.deepEqual(zip.rawPayload, ZIP_BYTES);
    for (const method of ['GET', 'HEAD'] as const) {
      const missing = await ask({ method, url: '/downloads/proxymarket-addon.zip' });
      assert.equal(missing.statusCode, 404, method);
      assert.doesNotMatch(String(missing.headers['content-type']), /html/, method);
    }
  });

  test('GET /environments.json lists the environments', async () => {
    const res = await ask({ method: 'GET', url: '/environments.json' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /application\/json/);
    assert.deepEqual(ZEnvironmentsFile.parse(res.json()), { environments: [environment] });
  });

  test('files go out precompressed by Accept-Encoding: brotli first, then gzip, else as they are', async () => {
    for (const url of ['/assets/app-1a2b.js', '/my/history']) {
      const br = await ask({
        method: 'GET',
        url,
        headers: { 'accept-encoding': 'gzip, deflate, br' },
      });
      assert.equal(br.headers['content-encoding'], 'br', url);
      assert.match(String(br.headers.vary), /accept-encoding/i, url);
      const gz = await ask({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
      assert.equal(gz.headers['content-encoding'], 'gzip', url);
      const plain = await ask({ method: 'GET', url, headers: { 'accept-encoding': 'identity' } });
      assert.equal(plain.headers['content-encoding'], undefined, url);
      const expected = url === '/my/history' ? INDEX : 'console.log("app");';
      assert.equal(brotliDecompressSync(br.rawPayload).toString(), expected, url);
      assert.equal(gunzipSync(gz.rawPayload).toString(), expected, url);
      assert.equal(plain.body, expected, url);
    }
    const asset = await ask({
      method: 'GET',
      url: '/assets/app-1a2b.js',
      headers: { 'accept-encoding': 'br' },
    });
    assert.match(String(asset.headers['content-type']), /javascript/);
    assert.match(String(asset.headers['cache-control']), /immutable/);
    const html = await ask({ method: 'GET', url: '/', headers: { 'accept-encoding': 'br' } });
    assert.equal(html.headers['cache-control'], 'no-cache');
    assert.match(String(html.headers['content-type']), /text\/html/);
  });

  test("GET /legal.json answers the operator's copy, null where the app shows its template", async () => {
    const res = await ask({ method: 'GET', url: '/legal.json' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { terms: '# Our terms\n\nRefunds as the FAQ says.', privacy: null });
  });
});
