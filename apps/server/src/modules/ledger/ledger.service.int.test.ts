import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AppError } from '@pm/contracts';
import { createDb, migrateDb } from '@pm/db';
import { buildAccount, createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { type Cents, cents } from '@pm/money';
import { createLedgerService, type LedgerService } from './ledger.service.ts';

let db: TestDatabase;
let ledger: LedgerService;

before(async () => {
  db = await createTestDatabase('ledger');
  ledger = createLedgerService({ db: db.db });
});
after(async () => {
  await db?.drop();
});

const balanceOf = async (userId: string) =>
  Number(
    (await db.query<{ b: string }>('SELECT balance_c AS b FROM accounts WHERE user_id = $1', [userId]))[0]?.b,
  );
const recordsOf = (userId: string) =>
  db.query<{ id: string; amt_c: string; bal_c: string; type: string; memo: string }>(
    'SELECT id, amt_c, bal_c, type, memo FROM txrecords WHERE user_id = $1 ORDER BY id',
    [userId],
  );
const isCode = (code: string) => (e: unknown) => e instanceof AppError && e.code === code;

describe('ledger.move', () => {
  test('credits and debits update the balance and write one record each with the balance after', async () => {
    const { userId } = await buildAccount(db);
    const credit = await ledger.move({
      userId,
      amountC: cents(1000),
      type: 'deposit',
      memo: 'BTC',
      idemKey: 'dep-1',
    });
    assert.equal(credit.balanceC, 1000);
    assert.equal(credit.replayed, false);
    assert.deepEqual(
      {
        amtC: credit.record.amtC,
        balC: credit.record.balC,
        type: credit.record.type,
        memo: credit.record.memo,
      },
      { amtC: 1000, balC: 1000, type: 'deposit', memo: 'BTC' },
    );
    const debit = await ledger.move({ userId, amountC: cents(-250), type: 'purchase' });
    assert.equal(debit.balanceC, 750);
    assert.equal(await balanceOf(userId), 750);
    const rows = await recordsOf(userId);
    assert.deepEqual(
      rows.map((r) => [Number(r.amt_c), Number(r.bal_c)]),
      [
        [1000, 1000],
        [-250, 750],
      ],
    );
    assert.ok(!Number.isNaN(Date.parse(debit.record.time)));
  });

  test('a debit below zero is refused with PAYMENT_REQUIRED and changes nothing', async () => {
    const { userId } = await buildAccount(db, { balanceC: 100 });
    await assert.rejects(
      ledger.move({ userId, amountC: cents(-101), type: 'purchase' }),
      isCode('PAYMENT_REQUIRED'),
    );
    assert.equal(await balanceOf(userId), 100);
    assert.equal((await recordsOf(userId)).length, 1);
    const exact = await ledger.move({ userId, amountC: cents(-100), type: 'purchase' });
    assert.equal(exact.balanceC, 0);
  });

  test('a replayed idempotency key returns the original record and changes nothing', async () => {
    const { userId } = await buildAccount(db);
    const first = await ledger.move({
      userId,
      amountC: cents(500),
      type: 'deposit',
      idemKey: 'chain:tx1:0',
    });
    const again = await ledger.move({
      userId,
      amountC: cents(500),
      type: 'deposit',
      idemKey: 'chain:tx1:0',
    });
    assert.equal(again.replayed, true);
    assert.deepEqual(again.record, first.record);
    assert.equal(again.balanceC, 500);
    assert.equal(await balanceOf(userId), 500);
    assert.equal((await recordsOf(userId)).length, 1);
  });

  test('twenty concurrent replays of one key credit exactly once', async () => {
    const { userId } = await buildAccount(db);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        ledger.move({ userId, amountC: cents(700), type: 'referral', idemKey: 'ref-race' }),
      ),
    );
    assert.equal(results.filter((r) => !r.replayed).length, 1);
    assert.equal(new Set(results.map((r) => r.record.id)).size, 1);
    assert.equal(await balanceOf(userId), 700);
    assert.equal((await recordsOf(userId)).length, 1);
  });

  test('one key used for two different accounts at once credits only one of them', async () => {
    const a = await buildAccount(db);
    const b = await buildAccount(db);
    const results = await Promise.allSettled([
      ledger.move({ userId: a.userId, amountC: cents(300), type: 'deposit', idemKey: 'shared-key' }),
      ledger.move({ userId: b.userId, amountC: cents(300), type: 'deposit', idemKey: 'shared-key' }),
    ]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const rejected = results.find((r) => r.status === 'rejected');
    assert.ok(rejected && isCode('CONFLICT')(rejected.reason));
    assert.equal((await balanceOf(a.userId)) + (await balanceOf(b.userId)), 300);
  });

  test('a key reused with a different amount is a CONFLICT', async () => {
    const { userId } = await buildAccount(db);
    await ledger.move({ userId, amountC: cents(100), type: 'deposit', idemKey: 'k-amt' });
    await assert.rejects(
      ledger.move({ userId, amountC: cents(200), type: 'deposit', idemKey: 'k-amt' }),
      isCode('CONFLICT'),
    );
    assert.equal(await balanceOf(userId), 100);
  });

  test('refuses a missing account, zero and fractional amounts', async () => {
    await assert.rejects(
      ledger.move({ userId: 'nobody', amountC: cents(5), type: 'deposit' }),
      isCode('NOT_FOUND'),
    );
    const { userId } = await buildAccount(db);
    await assert.rejects(
      ledger.move({ userId, amountC: cents(0), type: 'deposit' }),
      isCode('VALIDATION_FAILED'),
    );
    await assert.rejects(
      ledger.move({ userId, amountC: 1.5 as Cents, type: 'deposit' }),
      isCode('VALIDATION_FAILED'),
    );
    assert.equal((await recordsOf(userId)).length, 0);
  });

  test("runs inside the caller's transaction: a later failure rolls the move back", async () => {
    const { userId } = await buildAccount(db, { balanceC: 1000 });
    await assert.rejects(
      db.db.transaction(async (tx) => {
        const r = await ledger.move({ userId, amountC: cents(-400), type: 'purchase', memo: 'lease' }, tx);
        assert.equal(r.balanceC, 600);
        throw new Error('lease insert failed');
      }),
      /lease insert failed/,
    );
    assert.equal(await balanceOf(userId), 1000);
    assert.equal((await recordsOf(userId)).length, 1);

    await db.db.transaction(async (tx) => {
      await ledger.move({ userId, amountC: cents(-400), type: 'purchase' }, tx);
      await ledger.move({ userId, amountC: cents(-600), type: 'purchase' }, tx);
      await assert.rejects(
        ledger.move({ userId, amountC: cents(-1), type: 'purchase' }, tx),
        isCode('PAYMENT_REQUIRED'),
      );
    });
    assert.equal(await balanceOf(userId), 0);
  });
});

describe('ledger.listTxRecords', () => {
  test('pages newest first with a total, and filters by [start, end)', async () => {
    const { userId } = await buildAccount(db);
    for (let i = 1; i <= 5; i++) await ledger.move({ userId, amountC: cents(i * 100), type: 'deposit' });
    const page = await ledger.listTxRecords({ userId, offset: 1, limit: 2 });
    assert.equal(page.total, 5);
    assert.deepEqual(
      page.txRecords.map((r) => r.amtC),
      [400, 300],
    );
    const future = await ledger.listTxRecords({
      userId,
      offset: 0,
      limit: 10,
      start: new Date(Date.now() + 60_000),
    });
    assert.deepEqual(future, { txRecords: [], total: 0 });
  });
});

describe('on PGlite (the embedded default of npm start)', () => {
  test('concurrent moves and replays keep the balance equal to the records', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pm-ledger-pglite-'));
    const lite = await createDb({ dataDir: dir });
    try {
      await migrateDb(lite);
      await buildAccount(lite, { userId: 'u1' });
      const liteLedger = createLedgerService({ db: lite.db });
      const results = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) =>
          liteLedger.move({
            userId: 'u1',
            amountC: cents(i % 2 ? -100 : 150),
            type: i % 2 ? 'purchase' : 'deposit',
            idemKey: i % 4 === 0 ? 'same-credit' : undefined,
          }),
        ),
      );
      for (const r of results) {
        if (r.status === 'rejected') assert.ok(isCode('PAYMENT_REQUIRED')(r.reason), String(r.reason));
      }
      const [acc] = await lite.query<{ balance_c: string }>('SELECT balance_c FROM accounts');
      const [sum] = await lite.query<{ n: string; s: string }>(
        'SELECT count(*) AS n, sum(amt_c) AS s FROM txrecords',
      );
      assert.equal(Number(acc?.balance_c), Number(sum?.s));
      const keyed = await lite.query("SELECT 1 FROM txrecords WHERE idem_key = 'same-credit'");
      assert.equal(keyed.length, 1);
      // 20 debits, 10 unkeyed credits, 1 keyed credit: every row is one applied move.
      const applied = results.filter((r) => r.status === 'fulfilled' && !r.value.replayed).length;
      assert.equal(Number(sum?.n), applied);
    } finally {
      await lite.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
