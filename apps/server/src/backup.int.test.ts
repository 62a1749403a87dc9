/**
 * Backup and restore as docs/deploying.md "Backups" gives them (issue 29, item 6): a database with
 * sales and refunds is dumped with `pg_dump --format=custom` and restored into an empty database
 * with `pg_restore`; the restored books balance (every account's balance equals the sum of its
 * ledger records), every table holds what the source held, the migrations are current, and
 * money moves on from the restored sequences.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { ENDPOINTS } from '@pm/contracts';
import { createDb, type DbHandle, migrateDb } from '@pm/db';
import { buildAgent, buildLease, buildNode, TEST_SERVER_URL } from '@pm/db/testing';
import { cents } from '@pm/money';
import { createLedgerService } from './modules/ledger/ledger.service.ts';
import { createTestApp, type TestApp } from './test/app.ts';
import { buildCustomer, postLease, setFlatPrices } from './test/market.ts';
import { callRoute } from './test/route.ts';

const run = promisify(execFile);
const RESTORED = `t_backup_restored_${process.pid}`;

let t: TestApp;
let dir: string;
let restored: DbHandle | undefined;
before(async () => {
  t = await createTestApp('backup', { payments: false });
  dir = mkdtempSync(join(tmpdir(), 'pm-backup-'));
});
after(async () => {
  await restored?.close();
  const admin = await createDb({ databaseUrl: TEST_SERVER_URL, maxConnections: 1 });
  await admin.query(`DROP DATABASE IF EXISTS ${RESTORED} WITH (FORCE)`);
  await admin.close();
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

/** Accounts whose balance differs from the sum of their ledger records. */
const unbalanced = (db: Pick<DbHandle, 'query'>) =>
  db.query(
    `SELECT a.user_id, a.balance_c, coalesce(sum(t.amt_c), 0) AS ledger_c
       FROM accounts a LEFT JOIN txrecords t ON t.user_id = a.user_id
      GROUP BY a.user_id, a.balance_c HAVING a.balance_c <> coalesce(sum(t.amt_c), 0)`,
  );

const TABLES = ['accounts', 'txrecords', 'leases', 'sale_requests', 'agents', 'pricing_rules'];
const snapshot = async (db: Pick<DbHandle, 'query'>) => {
  const counts: Record<string, number> = {};
  for (const table of TABLES) {
    counts[table] = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n;
  }
  const balances = await db.query<{ user_id: string; balance_c: string }>(
    'SELECT user_id, balance_c FROM accounts ORDER BY user_id',
  );
  return { counts, balances };
};

test('pg_dump and pg_restore: the restored books balance and money moves on', {
  timeout: 120_000,
}, async () => {
  await setFlatPrices(t, 500, 200);
  const nodeId = (await buildNode(t.db)).id;
  for (let i = 0; i < 6; i++) {
    const who = await buildCustomer(t, 3000, 'backup');
    const own = await buildAgent(t.db, { nodeId });
    const shared = await buildAgent(t.db, { nodeId });
    for (const body of [
      { agentID: own.id, expPriceC: 500, exc: true },
      { agentID: shared.id, expPriceC: 200, exc: false },
    ]) {
      const res = await postLease(t, who, body);
      assert.equal(res.statusCode, 201, res.body);
    }
    // A refund through the ledger: a lease whose agent died within its first hours.
    const dead = await buildAgent(t.db, { nodeId, online: false });
    const lease = await buildLease(t.db, dead.id, {
      userId: who.userId,
      exc: true,
      start: new Date(Date.now() - 3600_000),
      untilMs: Date.now() + 20 * 3600_000,
      purchasePriceC: cents(500),
    });
    const refund = await callRoute(t, ENDPOINTS.refundLease, {
      params: { id: lease.id },
      headers: who.headers,
    });
    assert.equal(refund.statusCode, 200, refund.body);
  }
  assert.deepEqual(await unbalanced(t.db), []);
  const before = await snapshot(t.db);
  assert.ok(before.counts.txrecords! >= 6 * 4, 'the source has sales and refunds');

  // The guide's commands.
  const file = join(dir, 'pm.dump');
  await run('pg_dump', ['--format=custom', '--no-owner', '--file', file, t.db.url]);
  const admin = await createDb({ databaseUrl: TEST_SERVER_URL, maxConnections: 1 });
  await admin.query(`CREATE DATABASE ${RESTORED}`);
  await admin.close();
  const restoredUrl = withDatabase(TEST_SERVER_URL, RESTORED);
  await run('pg_restore', [
    '--no-owner',
    '--exit-on-error',
    '--single-transaction',
    '--dbname',
    restoredUrl,
    file,
  ]);

  restored = await createDb({ databaseUrl: restoredUrl, maxConnections: 2 });
  assert.deepEqual(await unbalanced(restored), [], 'the restored books balance');
  assert.deepEqual(await snapshot(restored), before, 'every table as in the source');
  // The migrations table came along: migrating the restored database changes nothing.
  const migrations = 'SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations';
  const applied = (await restored.query<{ n: number }>(migrations))[0]!.n;
  await migrateDb(restored);
  assert.equal((await restored.query<{ n: number }>(migrations))[0]!.n, applied);
  // Sequences came along: a new ledger record follows the old ones.
  const [{ max }] = (await restored.query<{ max: string }>('SELECT max(id) AS max FROM txrecords')) as [
    { max: string },
  ];
  const userId = before.balances[0]!.user_id;
  await createLedgerService({ db: restored.db }).move({
    userId,
    amountC: cents(100),
    type: 'adjustment',
    memo: 'after restore',
    idemKey: 'backup-test:after-restore',
  });
  const [last] = await restored.query<{ id: string }>('SELECT max(id) AS id FROM txrecords');
  assert.ok(Number(last!.id) > Number(max), 'the txrecords sequence continues');
  assert.deepEqual(await unbalanced(restored), []);
});
