import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError, ENDPOINTS, ZErrorBody } from '@pm/contracts';
import { buildAccount, buildAgent, newUserId } from '@pm/db/testing';
import { type Cents, cents, MAX_CENTS } from '@pm/money';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { callRoute, callRouteUnchecked } from '../../test/route.ts';
import { createLedgerService, type LedgerService } from './ledger.service.ts';

let t: TestApp;
let ledger: LedgerService;
let staff: Record<string, string>;

before(async () => {
  t = await createTestApp('ledger_bounds');
  ledger = createLedgerService({ db: t.db.db });
  staff = await t.staffAuth(newUserId('staff'));
});
after(async () => {
  await t?.close();
});

const snapshot = async () =>
  JSON.stringify([
    await t.db.query('SELECT user_id, balance_c FROM accounts ORDER BY user_id'),
    await t.db.query('SELECT * FROM txrecords ORDER BY id'),
  ]);
const isCode = (code: string, errorCode?: string) => (e: unknown) =>
  e instanceof AppError && e.code === code && (errorCode === undefined || e.details?.errorCode === errorCode);

describe('ledger.move within MAX_CENTS', () => {
  test('a credit that would take the balance past MAX_CENTS is a CONFLICT and changes nothing', async () => {
    const { userId } = await buildAccount(t.db, { balanceC: MAX_CENTS - 10 });
    const before = await snapshot();
    await assert.rejects(
      ledger.move({ userId, amountC: cents(11), type: 'deposit' }),
      isCode('CONFLICT', 'balanceLimit'),
    );
    assert.equal(await snapshot(), before);
    const exact = await ledger.move({ userId, amountC: cents(10), type: 'deposit' });
    assert.equal(exact.balanceC, MAX_CENTS);
  });

  test('an amount past MAX_CENTS either way is refused before touching the database', async () => {
    const { userId } = await buildAccount(t.db);
    for (const amountC of [MAX_CENTS + 1, -MAX_CENTS - 1, Number.MAX_SAFE_INTEGER, 2 ** 53, Number.NaN]) {
      await assert.rejects(
        ledger.move({ userId, amountC: amountC as Cents, type: 'adjustment' }),
        isCode('VALIDATION_FAILED'),
        String(amountC),
      );
    }
  });
});

describe('the database refuses money past MAX_CENTS in every money column', () => {
  const refuses = async (sql: string, params: unknown[]) => {
    await assert.rejects(t.db.query(sql, params), (e: { code?: string }) => e.code === '23514', sql);
  };

  test('accounts.balance_c and txrecords.amt_c / bal_c', async () => {
    const { userId } = await buildAccount(t.db);
    await t.db.query('UPDATE accounts SET balance_c = $2 WHERE user_id = $1', [userId, MAX_CENTS]);
    await refuses('UPDATE accounts SET balance_c = $2 WHERE user_id = $1', [userId, MAX_CENTS + 1]);
    const insert = "INSERT INTO txrecords (user_id, type, amt_c, bal_c) VALUES ($1, 'adjustment', $2, $3)";
    await t.db.query(insert, [userId, -MAX_CENTS, MAX_CENTS]);
    await refuses(insert, [userId, MAX_CENTS + 1, 0]);
    await refuses(insert, [userId, -MAX_CENTS - 1, 0]);
    await refuses(insert, [userId, 1, MAX_CENTS + 1]);
  });

  test('pricing_rules.price_exc_c / price_shr_c and leases.purchase_price_c / refund_amount_c', async () => {
    const agent = await buildAgent(t.db);
    const rule = 'UPDATE pricing_rules SET price_exc_c = $1, price_shr_c = $2 WHERE position = 1';
    await t.db.query(rule, [MAX_CENTS, MAX_CENTS]);
    await refuses(rule, [MAX_CENTS + 1, 0]);
    await refuses(rule, [0, MAX_CENTS + 1]);
    await refuses(rule, [-1, 0]);
    const insert = `INSERT INTO leases (id, user_id, agent_id, exc, until, socks_user, socks_pwd, purchase_price_c, refund_amount_c)
      VALUES ($1, 'u', $2, true, now(), $1, 'p', $3, $4)`;
    await t.db.query(insert, ['bnds-0001', agent.id, MAX_CENTS, MAX_CENTS]);
    await refuses(insert, ['bnds-0002', agent.id, MAX_CENTS + 1, null]);
    await refuses(insert, ['bnds-0003', agent.id, -1, null]);
    await refuses(insert, ['bnds-0004', agent.id, 0, MAX_CENTS + 1]);
  });
});

describe('PATCH /accounts/{id} balanceDeltaC (issue 15, defect 2)', () => {
  test('MAX_SAFE_INTEGER, then +1: refused and nothing saved; the account and its records still read back', async () => {
    const { userId } = await buildAccount(t.db);
    const customer = await t.auth(userId);
    const patch = (balanceDeltaC: number) =>
      callRouteUnchecked(t, ENDPOINTS.updateAccount, {
        params: { id: userId },
        headers: staff,
        body: { balanceDeltaC, reason: 'bounds test' },
      });

    const before = await snapshot();
    for (const delta of [Number.MAX_SAFE_INTEGER, MAX_CENTS + 1, -MAX_CENTS - 1]) {
      const res = await patch(delta);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(ZErrorBody.parse(res.json()).field, 'balanceDeltaC');
    }
    assert.equal(await snapshot(), before);

    const full = await patch(MAX_CENTS);
    assert.equal(full.statusCode, 200, full.body);
    assert.equal(full.json().balanceC, MAX_CENTS);
    const afterFull = await snapshot();
    const over = await patch(1);
    assert.equal(over.statusCode, 409, over.body);
    assert.equal(over.json().errorCode, 'balanceLimit');
    assert.equal(await snapshot(), afterFull);

    // Each read parses the balance at the bound by its success schema (`ok()`).
    (await callRoute(t, ENDPOINTS.getMyAccount, { headers: customer })).ok();
    (await callRoute(t, ENDPOINTS.getAccount, { params: { id: userId }, headers: staff })).ok();
    (await callRoute(t, ENDPOINTS.listTxRecords, { headers: customer })).ok();
    (await callRoute(t, ENDPOINTS.listTxRecords, { query: { uid: userId }, headers: staff })).ok();
  });
});
