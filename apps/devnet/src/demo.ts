/** Demo sign-ins for the embedded default: a customer with $50 and DEPOSIT, and an admin. */
import { PERMISSION_DEPOSIT, STAFF_PERMISSIONS } from '@pm/contracts';
import type { DbHandle } from '@pm/db';
import { ensureUser } from '@pm/identity';
import { cents } from '@pm/money';
import { createServices } from '@pm/server';

export interface DemoCredentials {
  customer: { email: string; password: string };
  admin: { email: string; password: string };
}

export const DEMO_CUSTOMER_EMAIL = 'customer@example.com';
export const DEMO_ADMIN_EMAIL = 'admin@example.com';
export const DEMO_BALANCE_C = cents(5000);

/** Creates (or re-creates) the demo users; the customer's $50 is credited once (idempotency key). */
export async function seedDemoUsers(db: DbHandle, creds: DemoCredentials): Promise<void> {
  const customer = await ensureUser(db, {
    email: creds.customer.email,
    password: creds.customer.password,
    emailVerified: true,
  });
  const admin = await ensureUser(db, {
    email: creds.admin.email,
    password: creds.admin.password,
    emailVerified: true,
    permissions: [...STAFF_PERMISSIONS],
  });
  const { accounts, ledger } = createServices(db);
  await accounts.ensureAccount({
    userId: customer.id,
    email: creds.customer.email,
    permissions: [PERMISSION_DEPOSIT],
    refcode: customer.referralCode,
  });
  await accounts.ensureAccount({ userId: admin.id, email: creds.admin.email, refcode: admin.referralCode });
  await ledger.move({
    userId: customer.id,
    amountC: DEMO_BALANCE_C,
    type: 'adjustment',
    memo: 'Demo balance',
    idemKey: `demo-seed:${customer.id}`,
  });
}
