import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cents } from '@pm/money';
import { eq } from 'drizzle-orm';
import { createDb, type DbHandle, migrateDb } from './client.ts';
import { accounts } from './schema/index.ts';
import { createTestDatabase, type TestDatabase } from './testing.ts';

/** The same smoke checks on both drivers: migrations apply, the balance check holds, LISTEN works. */
async function smoke(h: DbHandle): Promise<void> {
  await h.db.insert(accounts).values({ userId: 'u1', email: 'a@example.com' });
  const [row] = await h.db.select().from(accounts).where(eq(accounts.userId, 'u1'));
  assert.equal(row?.balanceC, 0);
  await assert.rejects(
    h.db
      .update(accounts)
      .set({ balanceC: cents(-1) })
      .where(eq(accounts.userId, 'u1')),
    (e: Error) =>
      /accounts_balance_nonneg/.test(String((e.cause as Error | undefined)?.message ?? e.message)),
  );
  let onHello: (p: string) => void = () => {};
  const got = new Promise<string>((resolve) => {
    onHello = resolve;
  });
  const unlisten = await h.listen('smoke_channel', (p) => {
    if (p) onHello(p);
  });
  await h.query(`SELECT pg_notify('smoke_channel', 'hello')`);
  assert.equal(await got, 'hello');
  await unlisten();
}

describe('db on PostgreSQL', () => {
  let t: TestDatabase;
  before(async () => {
    t = await createTestDatabase('db_smoke');
  });
  after(async () => t.drop());
  test('migrates, enforces the balance check, delivers NOTIFY', async () => smoke(t));
});

describe('db on PGlite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pglite-'));
  let h: DbHandle;
  before(async () => {
    h = await createDb({ dataDir: dir });
    await migrateDb(h);
  });
  after(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });
  test('migrates, enforces the balance check, delivers NOTIFY', async () => smoke(h));
});
