import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { agentIdProblem, registerAgent, rotateAgentKey } from './agent-keys.ts';
import { createPgAgentRegistry, type PgAgentRegistry } from './agent-registry.ts';

let db: TestDatabase;
let registry: PgAgentRegistry;

before(async () => {
  db = await createTestDatabase('agent_keys');
  registry = createPgAgentRegistry({ db, nodeId: 'gw-keys', reverseDns: false });
});
after(async () => {
  await registry.close();
  await db.drop();
});

test('a registered agent authenticates with its key; a rotated key replaces the old one', async () => {
  const creds = await registerAgent(db, 'ag-keys-1');
  assert.equal(creds.id, 'ag-keys-1');
  assert.match(creds.key, /^[0-9a-f]{48}$/);
  assert.equal(await registry.authenticate(creds.key), 'ag-keys-1');
  const [row] = await db.query<{ key_hash: string }>('SELECT key_hash FROM agents WHERE id = $1', [
    'ag-keys-1',
  ]);
  assert.notEqual(row?.key_hash, creds.key, 'only the hash is stored');

  const rotated = await rotateAgentKey(db, 'ag-keys-1');
  assert.notEqual(rotated.key, creds.key);
  assert.equal(await registry.authenticate(creds.key), undefined);
  assert.equal(await registry.authenticate(rotated.key), 'ag-keys-1');
});

test('a taken id, a bad id and an unknown agent are refused, and change nothing', async () => {
  await registerAgent(db, 'ag-keys-2');
  await assert.rejects(registerAgent(db, 'ag-keys-2'), /agent ag-keys-2 already exists/);
  await assert.rejects(registerAgent(db, "x'; DROP TABLE agents; --"), /an agent id is 3-64 letters/);
  await assert.rejects(rotateAgentKey(db, 'ag-nobody'), /no agent ag-nobody/);
  assert.equal(agentIdProblem('ag_ok-9'), null);
  const [n] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM agents');
  assert.equal(n?.n, 2, 'only ag-keys-1 and ag-keys-2');
});

test('the command prints the credentials for the .env of the device, and names a missing argument', async () => {
  const run = promisify(execFile);
  const cli = new URL('../agent-key-cli.ts', import.meta.url).pathname;
  const env = { ...process.env, DATABASE_URL: db.url };
  const { stdout } = await run(process.execPath, [cli, 'register', '--id', 'ag-keys-cli'], { env });
  const key = /^AGENT_ID=ag-keys-cli\nAGENT_KEY=([0-9a-f]{48})\n$/.exec(stdout)?.[1];
  assert.ok(key, stdout);
  assert.equal(await registry.authenticate(key), 'ag-keys-cli');
  await assert.rejects(
    run(process.execPath, [cli, 'rotate'], { env }),
    (e: { code: number; stderr: string }) => {
      assert.equal(e.code, 2);
      assert.match(e.stderr, /usage: agent-key-cli\.ts/);
      return true;
    },
  );
});
