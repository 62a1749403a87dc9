import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BROWSER_ADDON_ID, BROWSER_ADDON_REDIRECT_URI } from '@pm/contracts';
// @ts-expect-error: the add-on's own code is plain JavaScript (no build step for the browser).
import * as lib from './lib.js';

const manifest = JSON.parse(readFileSync(join(import.meta.dirname, 'manifest.json'), 'utf8')) as {
  manifest_version: number;
  key: string;
  permissions: string[];
};

test('the manifest key gives the id the identity host knows (MV3)', () => {
  const hex = createHash('sha256').update(Buffer.from(manifest.key, 'base64')).digest('hex').slice(0, 32);
  const id = [...hex].map((c) => String.fromCharCode(97 + Number.parseInt(c, 16))).join('');
  assert.equal(id, BROWSER_ADDON_ID);
  assert.equal(lib.redirectUri(id), BROWSER_ADDON_REDIRECT_URI);
  assert.equal(manifest.manifest_version, 3);
  assert.ok(manifest.permissions.includes('proxy'));
});

test('PKCE: S256 of the verifier, base64url', async () => {
  const p = await lib.createPkce();
  assert.match(p.verifier, /^[\w-]{43}$/);
  assert.equal(p.challenge, createHash('sha256').update(p.verifier).digest('base64url'));
});

test('the environment is the one whose origins hold the site; the authorize URL asks for the API', () => {
  const file = {
    environments: [
      {
        origins: ['https://a.example'],
        apiUrl: 'https://api.a/',
        issuer: 'https://id.a',
        clientId: 'web',
        audience: 'aud',
      },
    ],
  };
  const env = lib.pickEnvironment(file, 'https://a.example/shop');
  assert.equal(env.apiUrl, 'https://api.a');
  assert.throws(() => lib.pickEnvironment(file, 'https://b.example'), /not a ProxyMarket site/);
  const url = new URL(lib.authorizeUrl(env, { challenge: 'c', state: 's' }, BROWSER_ADDON_ID));
  assert.equal(url.origin + url.pathname, 'https://id.a/auth');
  assert.equal(url.searchParams.get('resource'), 'aud');
  assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
  assert.equal(url.searchParams.get('redirect_uri'), BROWSER_ADDON_REDIRECT_URI);
});

test('the redirect gives the code only for our state', () => {
  const ok = `${BROWSER_ADDON_REDIRECT_URI}?code=abc&state=s1`;
  assert.equal(lib.codeFromRedirect(ok, BROWSER_ADDON_ID, 's1'), 'abc');
  assert.throws(() => lib.codeFromRedirect(ok, BROWSER_ADDON_ID, 'other'), /another request/);
  assert.equal(lib.codeFromRedirect('https://elsewhere.example/?code=abc', BROWSER_ADDON_ID, 's1'), null);
  assert.throws(
    () =>
      lib.codeFromRedirect(
        `${BROWSER_ADDON_REDIRECT_URI}?error=access_denied&state=s1`,
        BROWSER_ADDON_ID,
        's1',
      ),
    /access_denied/,
  );
});

test('whitelist: the address is added once; the proxy is the no-auth port', () => {
  assert.equal(lib.withAddress('', '1.2.3.4'), '1.2.3.4');
  assert.equal(lib.withAddress('5.6.7.0/24, 1.2.3.4', '1.2.3.4'), '5.6.7.0/24,1.2.3.4');
  assert.equal(lib.withAddress(null, '1.2.3.4'), '1.2.3.4');
  const env = { apiUrl: 'https://api.example.com', issuer: 'https://id.example.com:8443' };
  assert.deepEqual(lib.proxyConfig({ node: '203.0.113.1', port: 1234 }, env).rules, {
    singleProxy: { scheme: 'socks5', host: '203.0.113.1', port: 1234 },
    // The product's own hosts stay direct: the API must keep seeing the browser's own address.
    bypassList: ['api.example.com', 'id.example.com:8443'],
  });
  assert.deepEqual(lib.proxyConfig({ node: 'h', port: 1 }, env, true).rules.bypassList[0], '<-loopback>');
});
