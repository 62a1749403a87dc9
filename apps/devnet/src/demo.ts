/** Demo sign-ins for the embedded default: a customer with $50 and DEPOSIT, and an admin. */
import { AppError, PERMISSION_DEPOSIT, STAFF_PERMISSIONS } from '@pm/contracts';
import type { DbHandle } from '@pm/db';
import { checkUserPassword, ensureUser, totpUri } from '@pm/identity';
import { type Cents, cents, formatUsd } from '@pm/money';
import { createServices } from '@pm/server';

/** The demo customer's webhook endpoint on the devnet inbox and the signing secret it was given. */
export interface DemoWebhook {
  url: string;
  secret: string;
}

export interface DemoCredentials {
  /** `webhook`: the endpoint made at first start on the devnet's webhook inbox. */
  customer: { email: string; password: string; webhook?: DemoWebhook };
  /** `totpSecret`: the demo admin's two-factor secret (base32), enrolled at first start. */
  admin: { email: string; password: string; totpSecret?: string };
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
    ...(creds.admin.totpSecret ? { totpSecret: creds.admin.totpSecret } : {}),
  });
  const { accounts, ledger } = createServices(db);
  // Confirmed addresses, as their sign-in users are: the demo customer can top up and buy at once.
  await accounts.ensureAccount({
    userId: customer.id,
    email: creds.customer.email,
    permissions: [PERMISSION_DEPOSIT],
    refcode: customer.referralCode,
    emailVerified: true,
  });
  await accounts.ensureAccount({
    userId: admin.id,
    email: creds.admin.email,
    refcode: admin.referralCode,
    emailVerified: true,
  });
  await ledger.move({
    userId: customer.id,
    amountC: DEMO_BALANCE_C,
    type: 'adjustment',
    memo: 'Demo balance',
    idemKey: `demo-seed:${customer.id}`,
  });
}

/**
 * Registers a webhook endpoint at `url` (the devnet inbox) for the user with `email`, through the
 * webhooks service as the API page would, with the API's allow-list; undefined for an unknown
 * user or one who already has the most endpoints.
 */
export async function createDemoWebhook(
  db: DbHandle,
  email: string,
  url: string,
  allowUrls: readonly string[],
): Promise<DemoWebhook | undefined> {
  const user = await checkUserPassword(db, email, '');
  if (!user) return undefined;
  const { webhooks } = createServices(db, 'warn', { webhookAllowUrls: allowUrls });
  try {
    return { url, secret: (await webhooks.createEndpoint(user.userId, url)).secret };
  } catch (e) {
    if (e instanceof AppError && e.code === 'CONFLICT') return undefined;
    throw e;
  }
}

/** What is true of the demo sign-ins now (the launcher's banner after a restart). */
export interface DemoStatus {
  customer: { passwordCurrent: boolean; balanceC: Cents | undefined; canDeposit: boolean };
  /** `twoFactorCurrent`: the admin still signs in with the secret kept beside its password. */
  admin: { passwordCurrent: boolean; twoFactorCurrent: boolean };
}

/** Reads the demo customer's balance and permissions and checks both first passwords against the stored hashes. */
export async function readDemoStatus(db: DbHandle, creds: DemoCredentials): Promise<DemoStatus> {
  const { accounts } = createServices(db);
  // One after the other: an argon2 check holds 19 MiB while it runs, and two at once raised the start's peak.
  const customer = await checkUserPassword(db, creds.customer.email, creds.customer.password);
  const admin = await checkUserPassword(db, creds.admin.email, creds.admin.password);
  const account = customer ? await accounts.getAccount(customer.userId).catch(() => undefined) : undefined;
  return {
    customer: {
      passwordCurrent: customer?.matches ?? false,
      balanceC: account?.balanceC,
      canDeposit: account?.permissions.includes(PERMISSION_DEPOSIT) ?? false,
    },
    admin: {
      passwordCurrent: admin?.matches ?? false,
      twoFactorCurrent: Boolean(creds.admin.totpSecret) && admin?.totpSecret === creds.admin.totpSecret,
    },
  };
}

/**
 * The banner's demo sign-in lines, from what is true now: a first password only while it still
 * works, the balance read from the account.
 */
export function demoSignInLines(creds: DemoCredentials, status: DemoStatus): string[] {
  const password = (current: boolean, first: string) =>
    current ? first : '(password changed since first start; reset it from the sign-in page)';
  const balance =
    status.customer.balanceC === undefined ? 'no account yet' : formatUsd(status.customer.balanceC);
  const deposit = status.customer.canDeposit ? 'may add funds' : 'may not add funds';
  const secret = creds.admin.totpSecret;
  const twoFactor = !secret
    ? []
    : status.admin.twoFactorCurrent
      ? [
          `Admin 2FA code:  node -e "import('otpauth').then(({TOTP})=>console.log(new TOTP({secret:'${secret}'}).generate()))"`,
          `                 (or add ${totpUri(secret, creds.admin.email)} to an authenticator app)`,
        ]
      : ['Admin 2FA:       (changed since first start; staff reset it from the admin area)'];
  return [
    `Demo customer:   ${creds.customer.email} / ${password(status.customer.passwordCurrent, creds.customer.password)}  (${balance}, ${deposit})`,
    `Demo admin:      ${creds.admin.email} / ${password(status.admin.passwordCurrent, creds.admin.password)}`,
    ...twoFactor,
  ];
}
