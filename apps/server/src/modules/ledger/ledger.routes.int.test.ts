import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS, type QueryOf, ZTxRecordsResponse } from '@pm/contracts';
import { buildAccount, newUserId } from '@pm/db/testing';
import { cents } from '@pm/money';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { callRoute, callRouteUnchecked } from '../../test/route.ts';
import { createLedgerService } from './ledger.service.ts';

let t: TestApp;
let customer: string;
let headers: Record<string, string>;

before(async () => {
  t = await createTestApp('txrecords_routes');
  customer = (await buildAccount(t.db)).userId;
  headers = await t.auth(customer);
  const ledger = createLedgerService({ db: t.db.db });
  // 12 records: +100 … +1200, then backdate them one day apart (newest today).
  for (let i = 1; i <= 12; i++)
    await ledger.move({ userId: customer, amountC: cents(i * 100), type: 'deposit', memo: `#${i}` });
  await t.db.query(
    `UPDATE txrecords
     SET time = (date_trunc('day', now() AT TIME ZONE 'UTC') + interval '12 hours' - (12 - amt_c / 100) * interval '1 day')
       AT TIME ZONE 'UTC'
     WHERE user_id = $1`,
    [customer],
  );
});
after(async () => {
  await t?.close();
});

const get = (query: QueryOf<typeof ENDPOINTS.listTxRecords> = {}, h = headers) =>
  callRoute(t, ENDPOINTS.listTxRecords, { query, headers: h });
const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

describe('GET /txrecords', () => {
  test('newest first, default page of 10, with the total', async () => {
    const res = await get();
    assert.equal(res.statusCode, 200);
    const body = ZTxRecordsResponse.parse(res.json());
    assert.equal(body.total, 12);
    assert.equal(body.txRecords.length, 10);
    assert.deepEqual(
      body.txRecords.slice(0, 3).map((r) => [r.amtC, r.memo, r.type]),
      [
        [1200, '#12', 'deposit'],
        [1100, '#11', 'deposit'],
        [1000, '#10', 'deposit'],
      ],
    );
    assert.equal(body.txRecords[0]!.balC, 7800);
  });

  test('offset and limit page through', async () => {
    const res = (await get({ offset: 10, limit: 10 })).json();
    assert.equal(res.total, 12);
    assert.deepEqual(
      res.txRecords.map((r: { amtC: number }) => r.amtC),
      [200, 100],
    );
  });

  test('start is inclusive and end exclusive (the client sends last date + 1 day)', async () => {
    // Records #10, #11, #12 are 2, 1 and 0 days old.
    const res = (await get({ start: day(-2), end: day(0) })).json();
    assert.equal(res.total, 2);
    assert.deepEqual(
      res.txRecords.map((r: { memo: string }) => r.memo),
      ['#11', '#10'],
    );
    const iso = (await get({ start: new Date(Date.now() - 86_400_000 / 2).toISOString() })).json();
    assert.deepEqual(
      iso.txRecords.map((r: { memo: string }) => r.memo),
      ['#12'],
    );
  });

  test('a user sees only their own records; staff read anyone with uid', async () => {
    const other = await buildAccount(t.db, { balanceC: 50 });
    const mine = (await get({}, await t.auth(other.userId))).json();
    assert.equal(mine.total, 1);
    assert.equal(mine.txRecords[0].amtC, 50);
    const staffView = (await get({ uid: customer, limit: 1 }, await t.staffAuth(newUserId('staff')))).json();
    assert.equal(staffView.total, 12);
    assert.equal(staffView.txRecords[0].memo, '#12');
    const forbidden = await get({ uid: customer }, await t.auth(other.userId));
    assert.equal(forbidden.statusCode, 403);
  });

  const bad: [string, string][] = [
    ['limit=abc', 'limit'],
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=2.5', 'limit'],
    ['offset=-1', 'offset'],
    ['start=notadate', 'start'],
    ['end=2026-13-45', 'end'],
    ['foo=1', 'foo'],
    ['uid=', 'uid'],
  ];
  for (const [query, field] of bad) {
    test(`?${query}: 400 naming ${field}`, async () => {
      // Refused input, sent as is.
      const res = await callRouteUnchecked(t, ENDPOINTS.listTxRecords, {
        query: Object.fromEntries(new URLSearchParams(query)),
        headers,
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().error, 'VALIDATION_FAILED');
      assert.equal(res.json().field, field);
      assert.ok(res.json().message.startsWith(`${field}: `));
    });
  }

  test('the limit message is the readable zod text', async () => {
    const res = (await get({ limit: 5000 })).json();
    assert.equal(res.message, 'limit: Too big: expected number to be <=1000');
  });
});
