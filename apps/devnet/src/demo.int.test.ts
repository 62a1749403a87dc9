import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { DbHandle } from '@pm/db';
import { createTestDatabase } from '@pm/db/testing';
import { ensureUser } from '@pm/identity';
import { cents } from '@pm/money';
import { createServices } from '@pm/server';
import { type DemoCredentials, demoSignInLines, readDemoStatus, seedDemoUsers } from './demo.ts';

let db: DbHandle;
const creds: DemoCredentials = {
  customer: { email: 'customer@example.com', password: 'first-customer-password' },
  admin: { email: 'admin@example.com', password: 'first-admin-password' },
};

before(async () => {
  db = await createTestDatabase('devnet_demo');
  await seedDemoUsers(db, creds);
});
after(async () => {
  await db?.close();
});

test('the banner prints the first passwords and $50.00 right after the first start', async () => {
  const lines = demoSignInLines(creds, await readDemoStatus(db, creds));
  assert.match(lines[0]!, /customer@example\.com \/ first-customer-password {2}\(\$50\.00, may add funds\)/);
  assert.match(lines[1]!, /admin@example\.com \/ first-admin-password$/);
});

test('after a password change and a purchase the banner says so instead of printing stale values', async () => {
  await ensureUser(db, { email: creds.customer.email, password: 'the customer changed it' });
  const status0 = await readDemoStatus(db, creds);
  const { ledger } = createServices(db);
  const userId = (
    await db.query<{ user_id: string }>('SELECT user_id FROM accounts WHERE email = $1', [
      creds.customer.email,
    ])
  )[0]!.user_id;
  await ledger.move({
    userId,
    amountC: cents(-1234),
    type: 'adjustment',
    memo: 'spent',
    idemKey: `demo-test:${userId}`,
  });
  const status = await readDemoStatus(db, creds);
  assert.equal(status0.customer.passwordCurrent, false);
  const lines = demoSignInLines(creds, status);
  assert.doesNotMatch(lines[0]!, /first-customer-password/);
  assert.match(lines[0]!, /password changed since first start/);
  assert.match(lines[0]!, /\$37\.66, may add funds/);
  assert.match(lines[1]!, /first-admin-password/, 'the admin kept theirs');
});
