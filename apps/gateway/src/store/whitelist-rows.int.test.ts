import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { createPgLeaseDirectory, type PgLeaseDirectory } from './lease-directory.ts';
import { insertAgent, insertLease, insertNode } from './network.testkit.ts';

let db: TestDatabase;
const closers: (() => Promise<void>)[] = [];

before(async () => {
  db = await createTestDatabase('whitelist_rows');
  await insertNode(db, 'w1');
});
after(async () => {
  for (const close of closers.reverse()) await close();
  await db.drop();
});

/** A directory and what it logged; fails the test when the first load does not finish in 5 s. */
async function directory(): Promise<{ dir: PgLeaseDirectory; errors: string[] }> {
  const errors: string[] = [];
  const dir = createPgLeaseDirectory({ db, nodeId: 'w1', onError: (e) => errors.push(String(e)) });
  closers.push(() => dir.close());
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((r) => {
    timer = setTimeout(() => r('timeout'), 5000);
  });
  const first = await Promise.race([dir.ready.then(() => 'ready' as const), timeout]);
  clearTimeout(timer);
  assert.equal(first, 'ready', `the first load must not fail on one row: ${errors.join('; ')}`);
  return { dir, errors };
}

test('a malformed or too wide whitelist row is logged and opens nothing; the other leases load', async () => {
  const agent = await insertAgent(db, 'w1');
  const good = await insertLease(db, agent.id, 'w1', { authPort: 20101, whitelist: ['127.0.0.3'] });
  // Rows written around the API (or before the /24 limit): an unparsable prefix, a bad prefix
  // length, a name, and ranges wider than /24.
  const broken = await insertLease(db, agent.id, 'w1', {
    authPort: 20102,
    whitelist: ['1.2.3.4/abc', '1.2.3.4/40', 'example.com', '127.0.0.4'],
  });
  const wide = await insertLease(db, agent.id, 'w1', {
    authPort: 20103,
    whitelist: ['0.0.0.0/0', '10.0.0.0/16'],
  });
  const { dir, errors } = await directory();

  assert.equal(dir.findByAuthPort(20101, '127.0.0.3')?.leaseId, good.id, 'the good lease loaded');
  assert.equal(dir.findByAuthPort(20102, '127.0.0.4')?.leaseId, broken.id, 'its valid entry still works');
  assert.equal(dir.findByAuthPort(20102, '1.2.3.4'), undefined, 'a malformed entry opens nothing');
  assert.equal(dir.findByCredentials(broken.user, broken.pwd)?.leaseId, broken.id, 'its credentials work');
  assert.equal(dir.findByAuthPort(20103, '8.8.8.8'), undefined, '0.0.0.0/0 is no open proxy');
  assert.equal(dir.findByAuthPort(20103, '10.0.0.1'), undefined, 'nor is a /16');
  assert.ok(
    errors.some((e) => e.includes(broken.id) && e.includes('1.2.3.4/abc')),
    errors.join('; '),
  );
  assert.ok(
    errors.some((e) => e.includes(wide.id) && e.includes('0.0.0.0/0')),
    errors.join('; '),
  );

  // Reloads go on, and log a row once, not every 30 s.
  const logged = errors.length;
  const later = await insertLease(db, agent.id, 'w1', { authPort: 20104, whitelist: ['127.0.0.5'] });
  await dir.reload();
  assert.equal(dir.findByAuthPort(20104, '127.0.0.5')?.leaseId, later.id);
  assert.equal(errors.length, logged);
});
