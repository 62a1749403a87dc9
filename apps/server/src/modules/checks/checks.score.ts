import { randomBytes } from 'node:crypto';
import {
  AppError,
  SCORE_PROVIDERS,
  type ScoreCheckErrorCode,
  type ScoreProviderLabel,
  type TScoreCheck,
  type TScoreCheckPurchase,
  type TScoreCheckQuote,
} from '@pm/contracts';
import type { Db, Tx } from '@pm/db';
import type { Cents } from '@pm/money';
import type { ChangeFeed } from '../../platform/changes.ts';
import { forEachItem, type ItemFailures, UNREPORTED } from '../../platform/jobs.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import type { ChecksSettings } from './checks.config.ts';
import { toScoreCheck } from './checks.mapper.ts';
import {
  mergeWarnings,
  type ProviderResult,
  runScoreProviders,
  type ScoreProvider,
} from './checks.providers.ts';
import { createChecksRepository, type ScoreCheckRow } from './checks.repository.ts';
import { assertCheckable } from './checks.service.ts';

export interface ScoreServiceDeps {
  db: Db;
  settings: ChecksSettings['score'];
  providers: Record<ScoreProviderLabel, ScoreProvider>;
  ledger: Pick<LedgerService, 'move' | 'charge'>;
  now: () => number;
  /** A finished check changes the agent as shown: every process reads it anew (topic `agent`). */
  changes?: Pick<ChangeFeed, 'publish'> | undefined;
}

type Results = Record<ScoreProviderLabel, Pick<ProviderResult, 'status' | 'score'>>;

/**
 * Paid IP score checks: a quote (price and a one-time token), then a purchase that spends the
 * token, charges once, runs the providers and keeps the result; refunded when every provider fails.
 */
export function createScoreService(deps: ScoreServiceDeps) {
  const repo = createChecksRepository(deps.db);
  const { settings } = deps;

  /**
   * The score check's charge: the one sale path (`ledger.charge`), which refuses a blocked account
   * (403) and a short balance or a missing account (402 `notEnoughFunds`), and moves nothing for a
   * free check.
   */
  async function charge(userId: string, priceC: Cents, token: string, agentId: string, tx: Tx) {
    await deps.ledger.charge(
      {
        userId,
        amountC: priceC,
        type: 'scorecheck',
        memo: `IP score check ${agentId}`,
        idemKey: `scorecheck:${token}`,
      },
      tx,
    );
  }
  async function refund(row: ScoreCheckRow, tx: Tx) {
    if (row.priceC === 0) return;
    await deps.ledger.move(
      {
        userId: row.userId,
        amountC: row.priceC,
        type: 'refund',
        memo: `IP score check ${row.agentId}: no provider answered`,
        idemKey: `scorecheck-refund:${row.token}`,
      },
      tx,
    );
  }

  /** Marks a running check refunded and pays it back, once (nothing when it is no longer running). */
  async function refundRunning(row: ScoreCheckRow, results: unknown): Promise<void> {
    await deps.db.transaction(async (tx) => {
      const done = await repo.finishScoreCheck(row.id, { status: 'refunded', results, warnings: null }, tx);
      if (done) await refund(done, tx);
    });
  }

  return {
    /** `POST /agents/scorecheck`: the price of a check and a token that buys one within the quote's lifetime. */
    async quote(userId: string): Promise<TScoreCheckQuote> {
      const token = randomBytes(24).toString('base64url');
      const priceC = settings.priceC as Cents;
      await repo.insertQuote({
        token,
        userId,
        priceC,
        expiresAt: new Date(deps.now() + settings.quoteTtlMs),
      });
      return { priceC, oneTimeToken: token };
    },

    /**
     * `PATCH /agents/scorecheck`: spends the token (CONFLICT `tokenInvalid` / `tokenUsed` /
     * `priceChanged`), charges the quoted price (402 when the balance is short) and records the
     * check in one transaction, then asks G, I and M. Partial answers are kept and shown; when none
     * answers, the check is refunded and UNAVAILABLE (`scoreCheckFailed`) is thrown.
     */
    async purchase(userId: string, body: TScoreCheckPurchase): Promise<TScoreCheck> {
      const agent = await repo.findAgent(body.agentID);
      assertCheckable(agent, body.agentID);
      const row = await deps.db.transaction(async (tx) => {
        const quote = await repo.lockQuote(body.oneTimeToken, userId, tx);
        const conflict = (errorCode: ScoreCheckErrorCode, userMessage: string) =>
          new AppError('CONFLICT', {
            message: `score check token: ${errorCode}`,
            userMessage,
            details: { errorCode },
          });
        if (!quote || quote.expiresAt.getTime() <= deps.now())
          throw conflict('tokenInvalid', 'The quote has expired, try again');
        if (quote.usedAt !== null) throw conflict('tokenUsed', 'This quote was already used');
        if (quote.priceC !== body.expectedPriceC) throw conflict('priceChanged', 'Price Changed');
        await repo.markQuoteUsed(quote.token, tx);
        const inserted = await repo.insertScoreCheck(
          { agentId: agent.id, ip: agent.ip, userId, token: quote.token, priceC: quote.priceC },
          tx,
        );
        await charge(userId, quote.priceC, quote.token, agent.id, tx);
        return inserted;
      });

      const found = await runScoreProviders(deps.providers, agent.ip, settings.timeoutMs);
      const results = Object.fromEntries(
        SCORE_PROVIDERS.map((l) => [l, { status: found[l].status, score: found[l].score }]),
      ) as Results;
      if (SCORE_PROVIDERS.every((l) => found[l].status === 'error')) {
        await refundRunning(row, results);
        throw new AppError('UNAVAILABLE', {
          message: `score check ${row.id}: ${SCORE_PROVIDERS.map((l) => found[l].error).join('; ')}`,
          userMessage: 'The score could not be checked; the fee was refunded',
          details: { errorCode: 'scoreCheckFailed' },
        });
      }
      const done = await repo.finishScoreCheck(row.id, {
        status: 'done',
        results,
        warnings: mergeWarnings(found),
      });
      if (!done) throw new AppError('INTERNAL', { message: `score check ${row.id} was finished elsewhere` });
      await deps.changes?.publish('agent', deps.db, agent.id);
      return toScoreCheck(done);
    },

    /** The newest finished check of the agent's current address; null when none. */
    async findLatest(agentId: string): Promise<TScoreCheck | null> {
      const agent = await repo.findAgent(agentId);
      if (!agent) return null;
      const row = await repo.findLatestScoreCheck(agentId, agent.ip);
      return row ? toScoreCheck(row) : null;
    },

    /**
     * Refunds checks a crashed process left running for over `olderThanMs` (job
     * checks.recoverScoreChecks); one that throws goes to `failures` and the others go on.
     */
    async refundAbandoned(olderThanMs = 5 * 60_000, failures: ItemFailures = UNREPORTED): Promise<number> {
      const rows = await repo.findStaleRunningScoreChecks(new Date(deps.now() - olderThanMs));
      await forEachItem(rows, { idOf: (r) => String(r.id), failures }, (r) => refundRunning(r, null));
      return rows.length;
    },
  };
}

export type ScoreService = ReturnType<typeof createScoreService>;
