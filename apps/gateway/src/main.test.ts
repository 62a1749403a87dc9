import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

/** Runs main.ts until it exits or prints a line on stdout (then stops it); bounded by 20 s. */
function run(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      if (out.includes('\n')) child.kill('SIGTERM');
    });
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

test('a gateway without a certificate refuses to start, naming the variables', async () => {
  const r = await run([], {
    DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    GATEWAY_TLS_CERT: '',
    GATEWAY_TLS_KEY: '',
  });
  assert.equal(r.code, 1);
  assert.match(r.err, /GATEWAY_TLS_CERT and GATEWAY_TLS_KEY are required/);
});

test('the standalone benchmark gateway is TLS by default, and says so; --plaintext says it too', async () => {
  const secure = await run(['--standalone'], {});
  assert.equal(JSON.parse(secure.out).tunnel, 'tls');
  assert.match(secure.err, /standalone benchmark gateway: .*TLS 1\.3 tunnel .*not for production/);
  const plain = await run(['--standalone', '--plaintext'], {});
  assert.equal(JSON.parse(plain.out).tunnel, 'plaintext');
  assert.match(plain.err, /PLAINTEXT tunnel on loopback/);
});

test('production main.ts refuses devnet-only settings and a missing GATEWAY_PUBLIC_IP, naming them', async () => {
  const r = await run([], {
    DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    GATEWAY_TLS_CERT: '/nonexistent/cert.pem',
    GATEWAY_TLS_KEY: '/nonexistent/key.pem',
    GATEWAY_TRUST_AGENT_IP: '1',
    GATEWAY_PUBLIC_IP: '',
  });
  assert.equal(r.code, 1);
  assert.match(r.err, /GATEWAY_TRUST_AGENT_IP is a devnet-only setting/);
  assert.match(r.err, /GATEWAY_PUBLIC_IP is required/);
});

test('production main.ts names every bad setting at once and logs nothing before they are right', async () => {
  const r = await run([], {
    DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    GATEWAY_TLS_CERT: '/nonexistent/cert.pem',
    GATEWAY_TLS_KEY: '/nonexistent/key.pem',
    GATEWAY_PUBLIC_IP: '81.2.69.160',
    GATEWAY_TUNNEL_PORT: 'seven',
    LOG_LEVEL: 'loud',
  });
  assert.equal(r.code, 1);
  assert.match(r.err, /GATEWAY_TUNNEL_PORT must be a port \(0-65535\), got "seven"/);
  assert.match(r.err, /LOG_LEVEL must be one of/);
  assert.equal(r.out, '');
});

test('production main.ts names an unreadable certificate file', async () => {
  const r = await run([], {
    DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    GATEWAY_TLS_CERT: '/nonexistent/cert.pem',
    GATEWAY_TLS_KEY: '/nonexistent/key.pem',
    GATEWAY_PUBLIC_IP: '81.2.69.160',
    GATEWAY_GEO: 'off',
  });
  assert.equal(r.code, 1);
  assert.match(r.err, /GATEWAY_TLS_CERT\/GATEWAY_TLS_KEY: ENOENT/);
});
