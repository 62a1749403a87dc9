import {
  AppError,
  isAppError,
  isStaffPermissionName,
  PERMISSION_UPDATE_STAFF,
  type TAccount,
  type TPatchAccountRequest,
} from '@pm/contracts';
import type { Db, DbOrTx, Tx } from '@pm/db';
import type { Cents } from '@pm/money';
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '../../platform/db.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import { type AccountRow, createAccountRepository } from './accounts.repository.ts';

export interface EnsureAccountInput {
  userId: string;
  email: string;
  permissions?: string[] | undefined;
  refcode?: string | null | undefined;
  /** Referral code of whoever invited the user (the token's `referred_by` claim); kept only on creation. */
  referredBy?: string | null | undefined;
  /** The token's `email_verified` claim: true confirms the address (on creation or later), never unsets it. */
  emailVerified?: boolean | undefined;
}

export interface PatchAccountOptions {
  /** Client's `Idempotency-Key` for the balance change: a retried adjustment is applied once. */
  idemKey?: string | undefined;
  /** Staff user making the change (recorded in the ledger memo when no memo is given). */
  actorId: string;
  /** The caller's token permissions: staff permission names need `update:staff` among them. */
  actorPermissions: readonly string[];
}

/** What the auth hook needs of an account: whether it is blocked, and which tokens it still accepts. */
export interface AccountAccess {
  blocked: boolean;
  /** Tokens issued before this instant (ms) are refused; 0 without an account. */
  tokensValidAfterMs: number;
  /** The address is confirmed; undefined without an account. */
  emailVerified: boolean | undefined;
}

/** What the accounts service is built from. */
export interface AccountServiceDeps {
  db: Db;
  /** Balance changes go through the ledger only. */
  ledger: Pick<LedgerService, 'move'>;
  /** Every staff edit writes its audit row in the edit's transaction. */
  audit: Pick<AuditService, 'record'>;
  /** Permissions of an account created without explicit ones (the operator's NEW_ACCOUNT_PERMISSIONS). */
  newAccountPermissions?: readonly string[] | undefined;
}

/** The accounts service's functions (derived from the factory). */
export type AccountService = ReturnType<typeof createAccountService>;

/** Maps a stored account to its wire shape. */
export function toAccount(row: AccountRow): TAccount {
  return {
    userID: row.userId,
    email: row.email,
    balanceC: row.balanceC,
    balanceCents: row.balanceC,
    permissions: row.permissions,
    refcode: row.refcode,
    blocked: row.blocked,
    emailVerified: row.emailVerified,
  };
}

const notFound = (userId: string) =>
  new AppError('NOT_FOUND', { message: `no account ${userId}`, userMessage: 'Account not found' });

/** Applies add/remove to a permission list, keeping the existing order and no duplicates. */
export function applyPermissionChange(
  current: string[],
  change: { add?: string[]; remove?: string[] },
): string[] {
  const remove = new Set(change.remove ?? []);
  const next = current.filter((p) => !remove.has(p));
  for (const p of change.add ?? []) if (!next.includes(p)) next.push(p);
  return next;
}

/**
 * Staff permission names (`read:users`, `update:staff`, any `verb:object` name) in an account's
 * market permissions make the sign-in host treat it as staff, so only `update:staff` may add or
 * remove them (issue 37): ordinary staff could otherwise shield an account from their peers, or
 * strip a staff account of that protection.
 */
function assertMayWritePermissions(patch: TPatchAccountRequest, options: PatchAccountOptions): void {
  if (options.actorPermissions.includes(PERMISSION_UPDATE_STAFF)) return;
  const names = [...(patch.permissions?.add ?? []), ...(patch.permissions?.remove ?? [])];
  const staffName = names.find(isStaffPermissionName);
  if (staffName === undefined) return;
  throw new AppError('FORBIDDEN', {
    message: `${options.actorId} without ${PERMISSION_UPDATE_STAFF} tried to write ${staffName}`,
    userMessage: `Only staff with the ${PERMISSION_UPDATE_STAFF} permission can grant or revoke ${staffName}`,
  });
}

/** Accounts: reading, creating from token claims, staff edits (permissions and balance), block state. */
export function createAccountService(deps: AccountServiceDeps) {
  const repo = createAccountRepository(deps.db);

  /** The staff adjustment through the ledger; a balance below zero is a 409. */
  async function moveBalance(
    userId: string,
    patch: TPatchAccountRequest & { balanceDeltaC: Cents },
    options: PatchAccountOptions,
    tx: Tx,
  ) {
    try {
      return await deps.ledger.move(
        {
          userId,
          amountC: patch.balanceDeltaC,
          type: 'adjustment',
          memo: patch.memo ?? 'Balance adjustment',
          // Scoped by target account so one client key cannot collide across users.
          idemKey: options.idemKey === undefined ? undefined : `adjustment:${userId}:${options.idemKey}`,
        },
        tx,
      );
    } catch (e) {
      if (isAppError(e) && e.code === 'PAYMENT_REQUIRED') {
        throw new AppError('CONFLICT', {
          message: `adjustment ${patch.balanceDeltaC} by ${options.actorId} would make ${userId} negative`,
          userMessage: 'Balance cannot go below zero',
          cause: e,
        });
      }
      throw e;
    }
  }

  return {
    /** The account, or NOT_FOUND. */
    async getAccount(userId: string): Promise<TAccount> {
      const row = await repo.findById(userId);
      if (!row) throw notFound(userId);
      return toAccount(row);
    },
    /**
     * Creates the account if missing (email, refcode and permissions only used on creation;
     * without permissions it gets the operator's `newAccountPermissions`); returns it. Without a
     * refcode from the token, or with one another account holds, the database generates one, so
     * every account has its own. The referrer is taken on creation or, if the account has none
     * yet, on a later call (never its own code; once set it stays).
     */
    async ensureAccount(input: EnsureAccountInput): Promise<TAccount> {
      const account = {
        userId: input.userId,
        email: input.email,
        permissions: [...new Set(input.permissions ?? deps.newAccountPermissions ?? [])],
        referredBy: input.referredBy && input.referredBy !== input.refcode ? input.referredBy : null,
        emailVerified: input.emailVerified === true,
      };
      try {
        await repo.insertIfMissing({ ...account, refcode: input.refcode ?? undefined });
      } catch (e) {
        if (pgErrorCode(e) !== PG_UNIQUE_VIOLATION || !input.refcode) throw e;
        await repo.insertIfMissing(account);
      }
      // The identity host names the inviter only once the sign-up mail's link confirmed the
      // address, which may come after the account was created: an account without one takes it
      // then (loads before it pay no reward; the first one after it is not "first").
      if (account.referredBy) await repo.attachReferrer(input.userId, account.referredBy);
      // A token saying the address is confirmed confirms an account made before it (never the reverse).
      if (account.emailVerified) await repo.markEmailVerified(input.userId);
      const row = await repo.findById(input.userId);
      if (!row) throw new AppError('INTERNAL', { message: `account ${input.userId} missing after insert` });
      return toAccount(row);
    },
    /**
     * Staff edit: grant/revoke permissions and/or adjust the balance through the ledger, atomically,
     * each change with its audit row in the same transaction. Refused: a staff member's own account
     * (403), a balance change without a reason (400 `reason`), a balance below zero (409).
     */
    async patchAccount(
      userId: string,
      patch: TPatchAccountRequest,
      options: PatchAccountOptions,
    ): Promise<TAccount> {
      const both = (patch.permissions?.add ?? []).filter((p) => patch.permissions?.remove?.includes(p));
      if (both.length > 0) {
        throw new AppError('VALIDATION_FAILED', {
          userMessage: `permissions: ${both[0]} is both added and removed`,
          details: { field: 'permissions' },
        });
      }
      assertMayWritePermissions(patch, options);
      if (userId === options.actorId) {
        throw new AppError('FORBIDDEN', {
          message: `${options.actorId} tried to change their own account`,
          userMessage: 'Staff cannot change their own balance or permissions; ask another staff member',
        });
      }
      const reason = patch.reason?.trim() || undefined;
      return deps.db.transaction(async (tx) => {
        const row = await repo.lockById(userId, tx);
        if (!row) throw notFound(userId);
        const audit = { actorId: options.actorId, targetId: userId, reason };
        if (patch.permissions) {
          const permissions = applyPermissionChange(row.permissions, patch.permissions);
          // A retried grant changes nothing and leaves no second row.
          if (permissions.join('\n') !== row.permissions.join('\n')) {
            await repo.setPermissions(userId, permissions, tx);
            await deps.audit.record(tx, {
              ...audit,
              action: 'account.permissions',
              before: { permissions: row.permissions },
              after: { permissions },
            });
          }
        }
        if (patch.balanceDeltaC !== undefined) {
          const moved = await moveBalance(
            userId,
            { ...patch, balanceDeltaC: patch.balanceDeltaC },
            options,
            tx,
          );
          // A retried key answers the first change: it moved nothing now, so nothing new to record.
          if (!moved.replayed) {
            await deps.audit.record(tx, {
              ...audit,
              action: 'account.balance',
              before: { balanceC: moved.balanceC - patch.balanceDeltaC },
              after: { balanceC: moved.balanceC },
            });
          }
        }
        const updated = await repo.findById(userId, tx);
        if (!updated) throw notFound(userId);
        return toAccount(updated);
      });
    },
    /** Whoever invited `userId` (undefined when nobody did or the code matches no account). */
    async findReferrerId(userId: string, tx?: DbOrTx): Promise<string | undefined> {
      return repo.findReferrerId(userId, tx);
    },
    /** How many accounts signed up with the invite code `refcode`. */
    async countInvited(refcode: string): Promise<number> {
      return repo.countReferredBy(refcode);
    },
    /** The account's block flag, tokens-valid-after time and confirmed address (for the auth hook). */
    async getAccess(userId: string): Promise<AccountAccess> {
      const row = await repo.findAccess(userId);
      return {
        blocked: row?.blocked ?? false,
        tokensValidAfterMs: row?.tokensValidAfter.getTime() ?? 0,
        emailVerified: row?.emailVerified,
      };
    },
    /**
     * Confirms the account's address because a verified token says the sign-in host confirmed it
     * (the `email_verified` claim; the auth hook calls it once, when the stored flag lags behind).
     */
    async confirmEmail(userId: string): Promise<boolean> {
      return repo.markEmailVerified(userId);
    },
    /** True when the account exists and is blocked (read in `tx`, when given). */
    async isBlocked(userId: string, tx?: DbOrTx): Promise<boolean> {
      return (await repo.findBlocked(userId, tx)) === true;
    },
  };
}
