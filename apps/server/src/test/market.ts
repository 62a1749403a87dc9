/** Test helpers for purchase and lease routes: customers with money, fixed prices, a purchase call. */
import { ENDPOINTS, type TLeasePurchaseBody } from '@pm/contracts';
import { buildAccount, newUserId } from '@pm/db/testing';
import type { FastifyInstance } from 'fastify';
import type { TestApp } from './app.ts';
import { callRoute, callRouteUnchecked } from './route.ts';

/** A customer: an account with `balanceC` (and its ledger row) and their bearer headers. */
export interface TestCustomer {
  userId: string;
  headers: Record<string, string>;
}

/** Creates a customer with `balanceC` cents on the account. */
export async function buildCustomer(t: TestApp, balanceC: number, prefix = 'buyer'): Promise<TestCustomer> {
  const account = await buildAccount(t.db, { userId: newUserId(prefix), balanceC });
  return { userId: account.userId, headers: await t.auth(account.userId) };
}

/** Replaces the pricing rules with one catch-all: every agent costs `priceExcC` private, `priceShrC` shared. */
export async function setFlatPrices(t: TestApp, priceExcC: number, priceShrC: number): Promise<void> {
  const res = await callRoute(t, ENDPOINTS.replacePricingRules, {
    headers: await t.staffAuth(newUserId('pricer')),
    body: { rules: [{ priceExcC, priceShrC }] },
  });
  res.ok();
}

/**
 * `POST /leases` (`createLease`) as `who`, to the test app or to another app such as a second
 * replica. The body is sent as given: the purchase tests also send bodies the schema refuses.
 */
export function postLease(
  t: TestApp | FastifyInstance,
  who: TestCustomer,
  body: TLeasePurchaseBody | Record<string, unknown>,
) {
  return callRouteUnchecked(t, ENDPOINTS.createLease, { headers: who.headers, body });
}

/** Balance and ledger of a user: the balance column and the sum and memos of their records. */
export async function booksOf(
  t: TestApp,
  userId: string,
): Promise<{
  balanceC: number;
  ledgerSumC: number;
  records: { type: string; memo: string; amtC: number }[];
}> {
  const [account] = await t.db.query<{ balance_c: string }>(
    'SELECT balance_c FROM accounts WHERE user_id = $1',
    [userId],
  );
  const records = await t.db.query<{ type: string; memo: string; amt_c: string }>(
    'SELECT type, memo, amt_c FROM txrecords WHERE user_id = $1 ORDER BY id',
    [userId],
  );
  return {
    balanceC: Number(account?.balance_c ?? 0),
    ledgerSumC: records.reduce((sum, r) => sum + Number(r.amt_c), 0),
    records: records.map((r) => ({ type: r.type, memo: r.memo, amtC: Number(r.amt_c) })),
  };
}
