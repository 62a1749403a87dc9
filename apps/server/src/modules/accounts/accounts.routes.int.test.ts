import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  ALL_PERMISSIONS,
  type BodyOf,
  ENDPOINTS,
  PERMISSION_DEPOSIT,
  PERMISSION_UPDATE_STAFF,
  STAFF_PERMISSIONS,
  ZAccount,
} from '@pm/contracts';
import { buildAccount, newUserId } from '@pm/db/testing';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { callRoute, callRouteUnchecked } from '../../test/route.ts';

let t: TestApp;
let staff: Record<string, string>;

before(async () => {
  t = await createTestApp('accounts_routes');
  staff = await t.staffAuth(newUserId('staff'));
});
after(async () => {
  await t?.close();
});

const ledgerRows = (userId: string) =>
  t.db.query<{ type: string; memo: string; amt_c: string; bal_c: string; idem_key: string | null }>(
    'SELECT type, memo, amt_c, bal_c, idem_key FROM txrecords WHERE user_id = $1 ORDER BY id',
    [userId],
  );

describe('GET/PUT /accounts/my', () => {
  test('404 before the account exists, PUT creates it from the token claims, then GET answers it', async () => {
    const userId = newUserId();
    const headers = await t.auth(userId, [], { email: 'new@example.test', referral_code: 'INV42' });
    const missing = await callRoute(t, ENDPOINTS.getMyAccount, { headers });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().error, 'NOT_FOUND');

    const created = await callRoute(t, ENDPOINTS.createMyAccount, { headers });
    assert.equal(created.statusCode, 200, created.body);
    const expected = {
      userID: userId,
      email: 'new@example.test',
      balanceC: 0,
      balanceCents: 0,
      permissions: [],
      refcode: 'INV42',
      blocked: false,
      // The test issuer's tokens say the address is confirmed.
      emailVerified: true,
    };
    assert.deepEqual(created.json(), expected);
    ZAccount.parse(created.json());

    // Idempotent, also with a JSON content type and an empty or {} body; claims do not overwrite.
    const other = await t.auth(userId, [], { email: 'changed@example.test' });
    for (const [contentType, payload] of [
      ['application/json', ''],
      ['application/json', '{}'],
      ['application/json', 'null'],
      ['text/plain;charset=UTF-8', ''],
    ] as const) {
      const again = await callRouteUnchecked(t, ENDPOINTS.createMyAccount, {
        headers: { ...other, 'content-type': contentType },
        payload,
      });
      assert.equal(again.statusCode, 200, `${payload}: ${again.body}`);
      assert.deepEqual(again.json(), expected);
    }
    const got = await callRoute(t, ENDPOINTS.getMyAccount, { headers });
    assert.deepEqual(got.json(), expected);
  });

  test('concurrent PUTs create one account', async () => {
    const userId = newUserId();
    const headers = await t.auth(userId);
    const res = await Promise.all(
      Array.from({ length: 8 }, () => callRoute(t, ENDPOINTS.createMyAccount, { headers })),
    );
    assert.ok(res.every((r) => r.statusCode === 200));
    const rows = await t.db.query('SELECT 1 FROM accounts WHERE user_id = $1', [userId]);
    assert.equal(rows.length, 1);
  });

  test('PUT with a non-empty body is a 400 naming the field', async () => {
    const res = await callRouteUnchecked(t, ENDPOINTS.createMyAccount, {
      headers: await t.auth(newUserId()),
      body: { balanceC: 100 },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().field, 'balanceC');
  });
});

describe('NEW_ACCOUNT_PERMISSIONS (the operator grants DEPOSIT at sign-up)', () => {
  let granting: TestApp;
  before(async () => {
    granting = await createTestApp('accounts_new_perms', {
      payments: false,
      settings: { newAccountPermissions: ['DEPOSIT'] },
    });
  });
  after(async () => {
    await granting?.close();
  });

  test('a new account gets DEPOSIT; an account that existed before keeps its own permissions', async () => {
    const headers = await granting.auth(newUserId());
    const created = await callRoute(granting, ENDPOINTS.createMyAccount, { headers });
    assert.equal(created.statusCode, 200, created.body);
    assert.deepEqual(created.json().permissions, ['DEPOSIT']);

    const revoked = await buildAccount(granting.db, { permissions: [] });
    const again = await callRoute(granting, ENDPOINTS.createMyAccount, {
      headers: await granting.auth(revoked.userId),
    });
    assert.deepEqual(
      again.json().permissions,
      [],
      'staff revoked it: signing in again does not grant it back',
    );
  });

  test('a customer cannot ask for more in the body', async () => {
    const res = await callRouteUnchecked(granting, ENDPOINTS.createMyAccount, {
      headers: await granting.auth(newUserId()),
      body: { permissions: ['update:accounts'] },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().field, 'permissions');
  });
});

describe('staff: GET/PATCH /accounts/{id}', () => {
  test('GET answers any account; 404 for an unknown one', async () => {
    const acc = await buildAccount(t.db, { balanceC: 1234, permissions: ['DEPOSIT'] });
    const res = await callRoute(t, ENDPOINTS.getAccount, { params: { id: acc.userId }, headers: staff });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().balanceC, 1234);
    assert.deepEqual(res.json().permissions, ['DEPOSIT']);
    const missing = await callRoute(t, ENDPOINTS.getAccount, {
      params: { id: 'nobody-here' },
      headers: staff,
    });
    assert.equal(missing.statusCode, 404);
  });

  test('grant and revoke DEPOSIT', async () => {
    const acc = await buildAccount(t.db);
    const patch = (payload: BodyOf<typeof ENDPOINTS.updateAccount>) =>
      callRoute(t, ENDPOINTS.updateAccount, {
        params: { id: acc.userId },
        headers: staff,
        body: payload,
      });
    const granted = await patch({ permissions: { add: ['DEPOSIT'] } });
    assert.equal(granted.statusCode, 200, granted.body);
    assert.deepEqual(granted.json().permissions, ['DEPOSIT']);
    assert.deepEqual((await patch({ permissions: { add: ['DEPOSIT'] } })).json().permissions, ['DEPOSIT']);
    const revoked = await patch({ permissions: { remove: ['DEPOSIT'] } });
    assert.deepEqual(revoked.json().permissions, []);
    const both = await patch({ permissions: { add: ['DEPOSIT'], remove: ['DEPOSIT'] } });
    assert.equal(both.statusCode, 400);
    assert.equal(both.json().field, 'permissions');
  });

  test('a balance delta goes through the ledger as an adjustment with the memo', async () => {
    const acc = await buildAccount(t.db);
    const res = await callRoute(t, ENDPOINTS.updateAccount, {
      params: { id: acc.userId },
      headers: staff,
      body: { balanceDeltaC: 2500, memo: 'Goodwill credit', reason: 'test' },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().balanceC, 2500);
    assert.equal(res.json().balanceCents, 2500);
    const debit = await callRoute(t, ENDPOINTS.updateAccount, {
      params: { id: acc.userId },
      headers: staff,
      body: { balanceDeltaC: -500, permissions: { add: ['DEPOSIT'] }, reason: 'test' },
    });
    assert.equal(debit.json().balanceC, 2000);
    assert.deepEqual(debit.json().permissions, ['DEPOSIT']);
    assert.deepEqual(
      (await ledgerRows(acc.userId)).map((r) => [r.type, r.memo, Number(r.amt_c), Number(r.bal_c)]),
      [
        ['adjustment', 'Goodwill credit', 2500, 2500],
        ['adjustment', 'Balance adjustment', -500, 2000],
      ],
    );
  });

  test('a delta below zero is a 409 and changes nothing, not even the permissions in the same patch', async () => {
    const acc = await buildAccount(t.db, { balanceC: 300 });
    const res = await callRoute(t, ENDPOINTS.updateAccount, {
      params: { id: acc.userId },
      headers: staff,
      body: { balanceDeltaC: -301, permissions: { add: ['DEPOSIT'] }, reason: 'test' },
    });
    assert.equal(res.statusCode, 409);
    assert.deepEqual(
      { error: res.json().error, message: res.json().message },
      { error: 'CONFLICT', message: 'Balance cannot go below zero' },
    );
    const now = await callRoute(t, ENDPOINTS.getAccount, { params: { id: acc.userId }, headers: staff });
    assert.equal(now.json().balanceC, 300);
    assert.deepEqual(now.json().permissions, []);
  });

  test('an Idempotency-Key makes a retried adjustment apply once', async () => {
    const acc = await buildAccount(t.db);
    const send = () =>
      callRoute(t, ENDPOINTS.updateAccount, {
        params: { id: acc.userId },
        headers: { ...staff, 'idempotency-key': 'adj-7f3a' },
        body: { balanceDeltaC: 1000, reason: 'test' },
      });
    const [a, b] = await Promise.all([send(), send()]);
    assert.equal(a.json().balanceC, 1000);
    assert.equal(b.json().balanceC, 1000);
    assert.equal((await send()).json().balanceC, 1000);
    assert.equal((await ledgerRows(acc.userId)).length, 1);
    const bad = await callRoute(t, ENDPOINTS.updateAccount, {
      params: { id: acc.userId },
      headers: { ...staff, 'idempotency-key': 'has space' },
      body: { balanceDeltaC: 1, reason: 'test' },
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().field, 'idempotency-key');
  });

  test('PATCH of an unknown account is a 404', async () => {
    const res = await callRoute(t, ENDPOINTS.updateAccount, {
      params: { id: 'nobody-here' },
      headers: staff,
      body: { balanceDeltaC: 5, reason: 'test' },
    });
    assert.equal(res.statusCode, 404);
  });
});

describe('bad input on PATCH /accounts/{id}', () => {
  const cases: [string, string, string][] = [
    ['balanceDeltaC: 1.5', '{"balanceDeltaC":1.5}', 'balanceDeltaC'],
    ['balanceDeltaC: "x"', '{"balanceDeltaC":"x"}', 'balanceDeltaC'],
    ['balanceDeltaC: 0', '{"balanceDeltaC":0}', 'balanceDeltaC'],
    ['permissions.add not an array', '{"permissions":{"add":"DEPOSIT"}}', 'permissions.add'],
    ['permissions.add with an empty name', '{"permissions":{"add":[""]}}', 'permissions.add.0'],
    ['unknown key in permissions', '{"permissions":{"grant":["DEPOSIT"]}}', 'permissions.grant'],
    ['extra top-level key', '{"balanceDeltaC":5,"blocked":true}', 'blocked'],
    ['neither permissions nor balanceDeltaC', '{}', 'permissions'],
    ['not an object', '[1,2]', 'body'],
    ['invalid JSON', '{"balanceDeltaC": 5', 'body'],
    ['empty body', '', 'body'],
  ];
  for (const [name, payload, field] of cases) {
    test(`${name}: 400 naming ${field}`, async () => {
      const acc = await buildAccount(t.db);
      // raw payload: malformed bodies on purpose
      const res = await callRouteUnchecked(t, ENDPOINTS.updateAccount, {
        params: { id: acc.userId },
        headers: { ...staff, 'content-type': 'application/json' },
        payload,
      });
      assert.equal(res.statusCode, 400, res.body);
      const body = res.json();
      assert.equal(body.error, 'VALIDATION_FAILED');
      assert.equal(body.field, field);
      assert.ok(body.message.startsWith(`${field}: `), body.message);
      assert.ok(body.requestId);
    });
  }
});

describe('staff permission names need update:staff (issue 37 item 3)', () => {
  const patch = (headers: Record<string, string>, userId: string, permissions: object) =>
    callRoute(t, ENDPOINTS.updateAccount, {
      params: { id: userId },
      headers: { ...headers, 'content-type': 'application/json' },
      body: { permissions, reason: 'test' },
    });

  test("ordinary staff try every permission name: only the customers' ones go through", async () => {
    const target = newUserId();
    await buildAccount(t.db, { userId: target });
    const tried = [...ALL_PERMISSIONS, 'update:pricing', 'READ:USERS', ' read:users', 'delete:accounts'];
    const granted: string[] = [];
    for (const name of tried) {
      const add = await patch(staff, target, { add: [name] });
      if (add.statusCode === 200) granted.push(name);
      else {
        assert.equal(add.statusCode, 403, `${name}: ${add.body}`);
        assert.match(add.json().message, /update:staff/);
      }
    }
    assert.deepEqual(granted, [PERMISSION_DEPOSIT]);
    const rows = await t.db.query<{ permissions: string[] }>(
      'SELECT permissions FROM accounts WHERE user_id = $1',
      [target],
    );
    assert.deepEqual(rows[0]?.permissions, [PERMISSION_DEPOSIT]);
  });

  test('nor can they strip a staff name, while staff with update:staff can grant and revoke them', async () => {
    const target = newUserId();
    await buildAccount(t.db, { userId: target, permissions: ['read:users'] });
    assert.equal((await patch(staff, target, { remove: ['read:users'] })).statusCode, 403);
    const admin = await t.auth(newUserId('super'), [...STAFF_PERMISSIONS, PERMISSION_UPDATE_STAFF]);
    const granted = await patch(admin, target, { add: ['update:accounts'] });
    assert.equal(granted.statusCode, 200, granted.body);
    assert.deepEqual(granted.json().permissions, ['read:users', 'update:accounts']);
    assert.equal((await patch(admin, target, { remove: ['read:users', 'update:accounts'] })).statusCode, 200);
  });
});
