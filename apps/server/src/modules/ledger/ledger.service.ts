import {
  AppError,
  EMAIL_NOT_CONFIRMED_MESSAGE,
  type TTxRecord,
  type TTxRecordsResponse,
  type TxType,
} from '@pm/contracts';
import type { Db, DbOrTx, Tx } from '@pm/db';
import { type Cents, formatUsd, MAX_CENTS } from '@pm/money';
import { PG_CHECK_VIOLATION, pgErrorCode } from '../../platform/db.ts';
import { createLedgerRepository, type TxRecordRow } from './ledger.repository.ts';

export interface MoveInput {
  userId: string;
  /** Signed, non-zero integer cents: positive credits, negative debits. */
  amountC: Cents;
  type: TxType;
  memo?: string | undefined;
  /**
   * Required for every credit from outside (chain payment, referral reward, admin adjustment):
   * a replayed key changes nothing and returns the original record.
   */
  idemKey?: string | undefined;
}

export interface MoveResult {
  record: TTxRecord;
  /** The account balance after this call (for a replay: the current balance). */
  balanceC: Cents;
  /** True when `idemKey` had been used already and nothing changed. */
  replayed: boolean;
}

/** A charge of a customer for something sold (a lease, a renewal, later checks and ports). */
export interface ChargeInput {
  userId: string;
  /** What it costs, integer cents >= 0; 0 moves no money but still checks the account. */
  amountC: Cents;
  type: TxType;
  memo: string;
  /** Makes a retried charge a no-op that answers the first record (e.g. `renew:<lease>:<until>`). */
  idemKey?: string | undefined;
}

export interface ChargeResult {
  /** The record written (or found, when replayed); undefined for a free sale. */
  record: TTxRecord | undefined;
  balanceC: Cents;
  replayed: boolean;
}

/** Refusals of a charge: what the sale answers (402 and 403 with an `errorCode`). */
export const chargeErrors = {
  notEnoughFunds: (message?: string, cause?: unknown) =>
    new AppError('PAYMENT_REQUIRED', {
      message,
      userMessage: 'Not enough funds on your balance',
      details: { errorCode: 'notEnoughFunds' },
      cause,
    }),
  accountBlocked: (userId: string) =>
    new AppError('FORBIDDEN', {
      message: `blocked account ${userId} cannot buy`,
      userMessage: 'Account blocked',
      details: { errorCode: 'accountBlocked' },
    }),
  emailNotConfirmed: (userId: string) =>
    new AppError('FORBIDDEN', {
      message: `account ${userId} has not confirmed its address and cannot buy`,
      userMessage: EMAIL_NOT_CONFIRMED_MESSAGE,
      details: { errorCode: 'emailNotConfirmed' },
    }),
};

export interface ListTxRecordsInput {
  userId: string;
  offset: number;
  limit: number;
  start?: Date | undefined;
  end?: Date | undefined;
}

/** What the ledger is built from. */
export interface LedgerServiceDeps {
  db: Db;
}

/** The ledger's functions (derived from the factory). */
export type LedgerService = ReturnType<typeof createLedgerService>;

/** Maps a stored ledger row to its wire shape. */
export function toTxRecord(row: TxRecordRow): TTxRecord {
  return {
    id: row.id,
    time: row.time.toISOString(),
    type: row.type,
    memo: row.memo,
    amtC: row.amtC,
    balC: row.balC,
  };
}

function assertSameMove(existing: TxRecordRow, input: MoveInput): void {
  if (existing.userId !== input.userId || existing.amtC !== input.amountC || existing.type !== input.type) {
    throw new AppError('CONFLICT', {
      message: `idempotency key ${input.idemKey} reused for a different move (record ${existing.id})`,
      userMessage: 'Idempotency key was already used for a different request',
    });
  }
}

/** The one way money moves: every balance change is one locked update plus one ledger row. */
export function createLedgerService(deps: LedgerServiceDeps) {
  const repo = createLedgerRepository(deps.db);

  /** `lockedBalanceC`: the balance the caller read under this transaction's lock of the row (one round trip less). */
  async function moveIn(input: MoveInput, tx: Tx, lockedBalanceC?: Cents): Promise<MoveResult> {
    const balanceC = lockedBalanceC ?? (await repo.lockBalance(input.userId, tx));
    if (balanceC === undefined) {
      throw new AppError('NOT_FOUND', {
        message: `no account ${input.userId}`,
        userMessage: 'Account not found',
      });
    }
    // Checked under the row lock: a concurrent replay of the same key for this account has committed by now.
    if (input.idemKey !== undefined) {
      const existing = await repo.findByIdemKey(input.idemKey, tx);
      if (existing) {
        assertSameMove(existing, input);
        return { record: toTxRecord(existing), balanceC, replayed: true };
      }
    }
    // Within ±2·MAX_CENTS, far inside the exact-integer range; refused below unless within the bounds.
    const newBalanceC = (balanceC + input.amountC) as Cents;
    if (newBalanceC < 0) {
      throw new AppError('PAYMENT_REQUIRED', {
        message: `balance ${balanceC} cannot take ${input.amountC} (${input.type})`,
        userMessage: 'Not enough funds',
      });
    }
    if (newBalanceC > MAX_CENTS) {
      throw new AppError('CONFLICT', {
        message: `balance ${balanceC} of ${input.userId} cannot take ${input.amountC} (${input.type})`,
        userMessage: `Balance cannot exceed ${formatUsd(MAX_CENTS)}`,
        details: { errorCode: 'balanceLimit' },
      });
    }
    const row = await repo.insert(
      {
        userId: input.userId,
        type: input.type,
        memo: input.memo ?? '',
        amtC: input.amountC,
        balC: newBalanceC,
        idemKey: input.idemKey ?? null,
      },
      tx,
    );
    if (!row) {
      // The unique index caught a concurrent insert of the same key (possible only across accounts).
      const existing = await repo.findByIdemKey(input.idemKey ?? '', tx);
      if (!existing)
        throw new AppError('INTERNAL', { message: 'txrecord insert conflicted but no record found' });
      assertSameMove(existing, input);
      return { record: toTxRecord(existing), balanceC, replayed: true };
    }
    await repo.setBalance(input.userId, newBalanceC, tx);
    return { record: toTxRecord(row), balanceC: newBalanceC, replayed: false };
  }

  return {
    /**
     * Moves `amountC` into (or out of) the account in one transaction: locks the account row,
     * refuses with PAYMENT_REQUIRED if the balance would go below zero and with CONFLICT
     * (`errorCode: 'balanceLimit'`) if it would pass MAX_CENTS, updates the balance and
     * writes the txrecord with the new balance. Pass `tx` to run inside the caller's transaction
     * (e.g. create a lease and debit atomically); the caller's transaction then owns commit/rollback.
     * Throws NOT_FOUND when the account does not exist, CONFLICT when `idemKey` was used for a
     * different move.
     */
    async move(input: MoveInput, tx?: Tx): Promise<MoveResult> {
      if (
        !Number.isSafeInteger(input.amountC) ||
        input.amountC === 0 ||
        Math.abs(input.amountC) > MAX_CENTS
      ) {
        throw new AppError('VALIDATION_FAILED', {
          message: `ledger amount must be a non-zero integer of cents within ±${MAX_CENTS}, got ${input.amountC}`,
          details: { field: 'amountC' },
        });
      }
      if (input.idemKey !== undefined && (input.idemKey.length === 0 || input.idemKey.length > 300)) {
        throw new AppError('VALIDATION_FAILED', { message: 'idempotency key must be 1-300 characters' });
      }
      try {
        if (tx) return await moveIn(input, tx);
        return await deps.db.transaction((t) => moveIn(input, t));
      } catch (e) {
        // The check constraints are the backstop; the lock above should make this unreachable.
        if (pgErrorCode(e) === PG_CHECK_VIOLATION) {
          throw new AppError('PAYMENT_REQUIRED', { message: 'balance check constraint', cause: e });
        }
        throw e;
      }
    },
    /**
     * Charges a customer `amountC` for something sold, in the sale's transaction: locks the account
     * row, refuses a blocked account (FORBIDDEN `accountBlocked`), one whose address the sign-in host
     * has not confirmed (FORBIDDEN `emailNotConfirmed`) and a short balance or a missing
     * account (PAYMENT_REQUIRED `notEnoughFunds`: no account is a balance of zero), then debits it
     * with one ledger record of `type` and `memo` (a replayed `idemKey` answers the first record).
     * Every sale (purchase, static, renewal, auto-renewal, paid checks, ports) charges through here.
     */
    async charge(input: ChargeInput, tx: Tx): Promise<ChargeResult> {
      if (!Number.isSafeInteger(input.amountC) || input.amountC < 0 || input.amountC > MAX_CENTS) {
        throw new AppError('VALIDATION_FAILED', {
          message: `a charge must be integer cents within 0-${MAX_CENTS}, got ${input.amountC}`,
          details: { field: 'amountC' },
        });
      }
      if (input.idemKey !== undefined && (input.idemKey.length === 0 || input.idemKey.length > 300)) {
        throw new AppError('VALIDATION_FAILED', { message: 'idempotency key must be 1-300 characters' });
      }
      const account = await repo.lockAccount(input.userId, tx);
      if (account?.blocked) throw chargeErrors.accountBlocked(input.userId);
      if (account && !account.emailVerified) throw chargeErrors.emailNotConfirmed(input.userId);
      if (input.amountC === 0)
        return { record: undefined, balanceC: account?.balanceC ?? (0 as Cents), replayed: false };
      if (!account) throw chargeErrors.notEnoughFunds(`no account ${input.userId}`);
      try {
        // The row is locked by this transaction already: its balance cannot have moved since.
        return await moveIn({ ...input, amountC: -input.amountC as Cents }, tx, account.balanceC);
      } catch (e) {
        if (e instanceof AppError && e.code === 'PAYMENT_REQUIRED')
          throw chargeErrors.notEnoughFunds(e.message, e);
        if (pgErrorCode(e) === PG_CHECK_VIOLATION)
          throw chargeErrors.notEnoughFunds('balance check constraint', e);
        throw e;
      }
    },
    /** The account's balance now (0 when there is no account yet). */
    async getBalance(userId: string, tx?: DbOrTx): Promise<Cents> {
      return (await repo.findBalance(userId, tx)) ?? (0 as Cents);
    },
    /** How many records of one type an account has and what they add up to (e.g. its deposits or rewards). */
    async totalsOfType(userId: string, type: TxType, tx?: DbOrTx): Promise<{ count: number; sumC: Cents }> {
      return repo.totalsOfType(userId, type, tx);
    },
    /**
     * The deposits credited to `userIds` after `sinceMs` (at most 1000; the webhooks' scan, whose
     * event keys make a later scan pick up the rest).
     */
    async depositsSince(sinceMs: number, userIds: string[], tx?: DbOrTx) {
      const rows = await repo.findOfTypeSince('deposit', userIds, new Date(sinceMs), 1000, tx);
      return rows.map((r) => ({ id: r.id, userId: r.userId, time: r.time, amtC: r.amtC, balC: r.balC }));
    },
    /** One page of an account's records, newest first, plus the total matching the date filter. */
    async listTxRecords(input: ListTxRecordsInput, tx?: DbOrTx): Promise<TTxRecordsResponse> {
      const filter = { userId: input.userId, start: input.start, end: input.end };
      const [rows, total] = await Promise.all([
        repo.findRecords({ ...filter, offset: input.offset, limit: input.limit }, tx),
        repo.countRecords(filter, tx),
      ]);
      return { txRecords: rows.map(toTxRecord), total };
    },
  };
}
