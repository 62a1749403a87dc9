import { AppError } from '@pm/contracts';
import type { Db, Tx } from '@pm/db';
import { createSaleRequestRepository, type SaleRequestRow, type SaleResult } from './sales.repository.ts';

export type { SaleRequestRow, SaleResult } from './sales.repository.ts';

/**
 * What a sale's `Idempotency-Key` record is for: a lease sale (`purchase`, `static`), a renewal,
 * a port package's purchase (`port`), reactivation or refund.
 */
export type SaleKind = 'purchase' | 'static' | 'renew' | 'port' | 'reactivate' | 'port-refund';

/** A sale's key as stored: who, the key, and the whole request it answered (its fingerprint). */
export interface SaleKey {
  userId: string;
  idemKey: string;
  kind: SaleKind;
  fingerprint: string;
}

/** Refusals of the sale kernel. */
export const saleKeyErrors = {
  idempotencyKeyReused: () =>
    new AppError('CONFLICT', {
      userMessage:
        'This Idempotency-Key was already used for a different request; send a new key for a new one.',
      details: { errorCode: 'idempotencyKeyReused' },
    }),
};

/**
 * The fingerprint of a request: its kind and every part that makes it what it is, in a fixed
 * order. Two requests are the same exactly when their fingerprints are equal, so callers pass the
 * whole normalized request (a retry with another city, count or access is another request).
 */
export const saleFingerprint = (kind: SaleKind, parts: readonly unknown[]): string =>
  JSON.stringify([kind, ...parts]);

/**
 * Runs calls with the same key one after another (each after the previous one settled). Sales that
 * would wait on one row lock (one agent, one package, one key) take their turn here, in memory,
 * rather than each holding a pool connection while it waits: a race on one row would otherwise
 * take every connection. `fn` is told whether it waited for an earlier call (which may have sold
 * what it wants: a plain read now sees that, without a transaction).
 */
export function createTurns() {
  const tails = new Map<string, Promise<unknown>>();
  return async function inTurn<T>(key: string, fn: (waited: boolean) => Promise<T>): Promise<T> {
    const before = tails.get(key);
    const run = () => fn(before !== undefined);
    const result = (before ?? Promise.resolve()).then(run, run);
    const tail = result.catch(() => {});
    tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}

/** What the sale kernel is built from. */
export interface SaleKeyServiceDeps {
  db: Db;
}

/** The sale kernel's functions (derived from the factory). */
export type SaleKeyService = ReturnType<typeof createSaleKeyService>;

/**
 * The sale kernel every product sells through (leases, static leases, renewals, port packages):
 * one `sale_requests` record per customer and `Idempotency-Key`, holding the whole request's
 * fingerprint and what it answered, written in the sale's own transaction. A retry or a parallel
 * twin under the key answers the first result and is never charged (or paid) twice; the key with
 * another request is CONFLICT idempotencyKeyReused; a refused sale stores nothing.
 */
export function createSaleKeyService(deps: SaleKeyServiceDeps) {
  const repo = createSaleRequestRepository(deps.db);
  const inTurn = createTurns();

  return {
    /**
     * Claims a sale's key in the sale's transaction. Undefined when this transaction now holds it
     * (go on and sell); the stored row when an earlier sale under the key committed (a parallel
     * twin waits here for the first to commit or roll back), which the caller answers again.
     * CONFLICT idempotencyKeyReused when the key was used for a different request.
     */
    async claim(key: SaleKey, tx: Tx): Promise<SaleRequestRow | undefined> {
      if (await repo.claim(key, tx)) return undefined;
      const prior = await repo.find(key.userId, key.idemKey, tx);
      if (!prior)
        throw new AppError('INTERNAL', { message: `sale key ${key.idemKey} conflicted but is gone` });
      if (prior.fingerprint !== key.fingerprint) throw saleKeyErrors.idempotencyKeyReused();
      return prior;
    },

    /**
     * An earlier sale under the key, read without a lock (answered before any work): undefined when
     * the key is new; CONFLICT idempotencyKeyReused when it answered another request.
     */
    async findPrior(key: SaleKey): Promise<SaleRequestRow | undefined> {
      const prior = await repo.find(key.userId, key.idemKey);
      if (prior && prior.fingerprint !== key.fingerprint) throw saleKeyErrors.idempotencyKeyReused();
      return prior;
    },

    /** Records what the sale under a key this transaction claimed answered. */
    async record(key: Pick<SaleKey, 'userId' | 'idemKey'>, result: SaleResult, tx: Tx): Promise<void> {
      await repo.setResult(key, result, tx);
    },

    /** Runs `fn` after every earlier call with the same turn key settled (see `createTurns`). */
    inTurn,
  };
}
