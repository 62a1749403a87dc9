/**
 * Property test of the ledger under concurrency: random credits and debits (some replaying an
 * idempotency key) run in concurrent batches against a pool of 20 connections; afterwards the
 * books must balance exactly.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AppError } from '@pm/contracts';
import { buildAccount, createTestDatabase, newUserId, type TestDatabase } from '@pm/db/testing';
import { cents } from '@pm/money';
import fc from 'fast-check';
import { createLedgerService, type LedgerService, type MoveResult } from './ledger.service.ts';

const ACCOUNTS = 4;
const BATCH = 60;

let db: TestDatabase;
let ledger: LedgerService;

before(async () => {
  db = await createTestDatabase('ledger_prop');
  ledger = createLedgerService({ db: db.db });
});
after(async () => {
  await db?.drop();
});

interface Op {
  account: number;
  amountC: number;
  /** Ops sharing a key number are replays of the first op with that key. */
  key: number | null;
}

const opArb: fc.Arbitrary<Op> = fc.record({
  account: fc.integer({ min: 0, max: ACCOUNTS - 1 }),
  // Credit-biased so debits sometimes fit and sometimes do not.
  amountC: fc.integer({ min: -4000, max: 5000 }).filter((n) => n !== 0),
  key: fc.option(fc.integer({ min: 0, max: 40 }), { freq: 3 }),
});

let run = 0;
let refusedTotal = 0;
let replayedTotal = 0;

async function checkRun(ops: Op[]): Promise<void> {
  run++;
  const users = Array.from({ length: ACCOUNTS }, () => newUserId(`prop${run}`));
  for (const userId of users) await buildAccount(db, { userId });

  // A replay repeats the first op with that key exactly (same account, amount and type).
  const firstByKey = new Map<number, Op>();
  const moves = ops.map((op) => {
    const base = op.key === null ? op : (firstByKey.get(op.key) ?? firstByKey.set(op.key, op).get(op.key)!);
    return {
      userId: users[base.account]!,
      amountC: cents(base.amountC),
      type: base.amountC > 0 ? ('deposit' as const) : ('purchase' as const),
      idemKey: op.key === null ? undefined : `run${run}:key${op.key}`,
    };
  });

  const results: (MoveResult | 'refused')[] = [];
  for (let i = 0; i < moves.length; i += BATCH) {
    const batch = await Promise.all(
      moves.slice(i, i + BATCH).map((m) =>
        ledger.move(m).catch((e: unknown) => {
          // The only acceptable failure is "not enough funds".
          if (e instanceof AppError && e.code === 'PAYMENT_REQUIRED') return 'refused' as const;
          throw e;
        }),
      ),
    );
    results.push(...batch);
  }

  const rows = await db.query<{
    id: string;
    user_id: string;
    amt_c: string;
    bal_c: string;
    idem_key: string | null;
  }>('SELECT id, user_id, amt_c, bal_c, idem_key FROM txrecords WHERE user_id = ANY($1) ORDER BY id', [
    users,
  ]);
  const balances = await db.query<{ user_id: string; balance_c: string }>(
    'SELECT user_id, balance_c FROM accounts WHERE user_id = ANY($1)',
    [users],
  );

  // Every successful, non-replayed move wrote exactly one row; refusals and replays wrote none.
  refusedTotal += results.filter((r) => r === 'refused').length;
  replayedTotal += results.filter((r) => r !== 'refused' && r.replayed).length;
  const applied = results.filter((r): r is MoveResult => r !== 'refused' && !r.replayed);
  assert.equal(rows.length, applied.length);

  for (const { user_id, balance_c } of balances) {
    const mine = rows.filter((r) => r.user_id === user_id);
    let running = 0;
    for (const r of mine) {
      running += Number(r.amt_c);
      assert.equal(Number(r.bal_c), running, `balC chain broken at record ${r.id}`);
      assert.ok(Number(r.bal_c) >= 0, `negative balC at record ${r.id}`);
    }
    assert.equal(Number(balance_c), running, `balance of ${user_id} differs from the sum of its records`);
    assert.ok(Number(balance_c) >= 0);
  }

  // A replayed key changed nothing: one row per key, and every call with it saw that same row.
  const byKey = new Map<string, number[]>();
  moves.forEach((m, i) => {
    const r = results[i];
    if (m.idemKey && r && r !== 'refused')
      byKey.set(m.idemKey, [...(byKey.get(m.idemKey) ?? []), r.record.id]);
  });
  for (const [key, ids] of byKey) {
    const stored = rows.filter((r) => r.idem_key === key);
    assert.equal(stored.length, 1, `key ${key} stored ${stored.length} times`);
    assert.ok(
      ids.every((id) => id === Number(stored[0]!.id)),
      `key ${key} answered with different records`,
    );
  }
}

test('concurrent random credits and debits keep every balance equal to its records', {
  timeout: 120_000,
}, async () => {
  const started = Date.now();
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 400, maxLength: 700 }), checkRun),
    // Shrinking thousands of concurrent operations is slow and rarely clearer: report the first failure.
    { numRuns: 8, endOnFailure: true },
  );
  const total = (await db.query<{ n: string }>('SELECT count(*) AS n FROM txrecords'))[0]?.n;
  assert.ok(Number(total) > 1000, `expected thousands of records, got ${total}`);
  // Both the 402 path and the replay path were exercised.
  assert.ok(refusedTotal > 0 && replayedTotal > 0, `refused ${refusedTotal}, replayed ${replayedTotal}`);
  assert.ok(Date.now() - started < 90_000);
});
