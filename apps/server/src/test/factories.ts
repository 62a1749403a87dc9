import { randomBytes } from 'node:crypto';
import type { TAccount } from '@pm/contracts';
import type { DbHandle } from '@pm/db';
import { ensureAccount } from '../modules/accounts/accounts.service.ts';
import { createLedgerService } from '../modules/ledger/ledger.service.ts';

let seq = 0;

/** A unique user id for a test. */
export const newUserId = (prefix = 'user') => `${prefix}-${++seq}-${randomBytes(3).toString('hex')}`;

/** Creates an account, optionally with a starting balance (one 'adjustment' ledger row). */
export async function buildAccount(
  db: DbHandle,
  o: { userId?: string; email?: string; balanceC?: number; permissions?: string[] } = {},
): Promise<TAccount> {
  const userId = o.userId ?? newUserId();
  const account = await ensureAccount(db, {
    userId,
    email: o.email ?? `${userId}@example.test`,
    permissions: o.permissions ?? [],
  });
  if (!o.balanceC) return account;
  const { balanceC } = await createLedgerService(db).move({
    userId,
    amountC: o.balanceC,
    type: 'adjustment',
    memo: 'test seed',
    idemKey: `seed:${userId}`,
  });
  return { ...account, balanceC, balanceCents: balanceC };
}
