import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { makeSelfSignedCert } from './tunnel/self-signed.ts';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

let db: TestDatabase;
let dir: string;
before(async () => {
  db = await createTestDatabase('gateway_main');
  dir = mkdtempSync(join(tmpdir(), 'pm-gw-main-'));
  const { cert, key } = makeSelfSignedCert();
  writeFileSync(join(dir, 'gw.pem'), cert);
  writeFileSync(join(dir, 'gw.key'), key);
});
after(async () => {
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

test('a production node logs pino JSON lines on stdout, as the other apps do', {
  timeout: 30_000,
}, async () => {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      GATEWAY_TLS_CERT: join(dir, 'gw.pem'),
      GATEWAY_TLS_KEY: join(dir, 'gw.key'),
      GATEWAY_PUBLIC_IP: '81.2.69.160',
      GATEWAY_NODE_ID: 'gw-main-test',
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_TUNNEL_PORT: '0',
      GATEWAY_GEO: 'off',
      // No spare pool: the default range is fixed ports, which other tests of this machine may hold.
      PACKAGE_SPARE_PORTS: '0',
      LOG_LEVEL: 'info',
    },
  });
  let out = '';
  let err = '';
  const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
  child.stderr.on('data', (d: Buffer) => (err += d));
  const started = await new Promise<Record<string, unknown> | undefined>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      for (const line of out.split('\n').filter(Boolean)) {
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (entry.msg === 'gateway started') resolve(entry);
      }
    });
    child.on('exit', () => resolve(undefined));
  });
  if (child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  clearTimeout(timer);
  assert.ok(started, `no start line: ${out} ${err}`);
  assert.equal(started.level, 30);
  assert.equal(started.app, 'gateway');
  assert.equal(started.node, 'gw-main-test');
  assert.equal(typeof started.time, 'number');
});
