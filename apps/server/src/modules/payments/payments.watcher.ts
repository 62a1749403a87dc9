/**
 * The chain watcher: polls the open charges' addresses, records what it sees, and credits each
 * confirmed output exactly once. Exactly-once rests on keys, not on timing: an output's row is
 * unique by (currency, txid, vout | recipient), it turns 'credited' only through
 * `UPDATE … WHERE state <> 'credited'`, and that update, its ledger records (keyed by the same
 * output) and the charge's new status commit in one transaction. Any number of watchers, restarts,
 * replayed or stale API answers and vanished transactions therefore credit each output once.
 */
import type { CurrencyId } from '@pm/contracts';
import type { Db } from '@pm/db';
import { cents } from '@pm/money';
import type { Logger } from '../../platform/logger.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import type { ReferralService } from '../referral/referral.service.ts';
import { creditCents, DECIMALS, formatCoins, percentOf } from './payments.amounts.ts';
import { ChainApiError, type ChainClient, type ObservedOutput } from './payments.chains.ts';
import type { PaymentsSettings } from './payments.config.ts';
import { chargeStatus, paidAt } from './payments.mapper.ts';
import type { RateSource } from './payments.rates.ts';
import type { ChargeRow, DueCharge, PaymentRow, PaymentsRepository } from './payments.repository.ts';

/** What the watcher is built from. */
export interface WatcherDeps {
  db: Db;
  repo: PaymentsRepository;
  clients: Partial<Record<CurrencyId, ChainClient>>;
  rates: Pick<RateSource, 'quote'>;
  ledger: Pick<LedgerService, 'move'>;
  referral: Pick<ReferralService, 'rewardLoad'>;
  settings: PaymentsSettings;
  now: () => number;
  log: Logger;
}

/** One chain's pass: charges polled, polls that failed, outputs credited, and whether the chain was backed off. */
export interface ChainPassResult {
  currency: CurrencyId;
  polled: number;
  failed: number;
  credited: number;
  skipped: boolean;
}

const LABEL: Record<CurrencyId, string> = { btc: 'BTC', ltc: 'LTC', trc20usdt: 'USDT TRC20' };
/** USDT payments under this many cents pay the small-payment fee (SPEC 5: under $10). */
const USDT_FEE_BELOW_C = 1000;
/** TRC-20 history is read from a little before the charge existed (clock skew between us and TRON). */
const TRON_HISTORY_SLACK_MS = 3600_000;

/** Runs `fn` over `items` with at most `limit` at once; stops starting new ones once `shouldStop()`. */
async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>, shouldStop: () => boolean) {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !shouldStop()) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Builds the watcher over the repository, chain clients, rates, ledger and referral rewards. */
export function createPaymentWatcher(deps: WatcherDeps) {
  const { repo, settings } = deps;
  const clock = () => new Date(deps.now());

  /** Recomputes a charge's aggregates and status from its payments, under its row lock. */
  async function settleCharge(chargeId: string, tx: Parameters<Parameters<Db['transaction']>[0]>[0]) {
    const charge = await repo.lockCharge(chargeId, tx);
    if (!charge) return;
    const payments = await repo.findPayments([chargeId], tx);
    const credited = payments.filter((p) => p.state === 'credited');
    const hasPending = payments.some((p) => p.state === 'pending');
    const receivedBase = credited.reduce((s, p) => s + p.valueBase, 0n);
    const now = clock();
    const status = chargeStatus({
      dueBase: charge.dueBase,
      receivedBase,
      hasPending,
      expiresAt: hasPending ? charge.watchUntil : charge.expiresAt,
      now,
    });
    // A payment on its way keeps the address watched for another grace window.
    const watchUntil =
      hasPending && charge.watchUntil.getTime() < now.getTime() + settings.graceMs
        ? new Date(now.getTime() + settings.graceMs)
        : charge.watchUntil;
    await repo.updateCharge(
      chargeId,
      {
        status,
        receivedBase,
        creditedC: cents(credited.reduce((s, p) => s + (p.creditedC ?? 0), 0)),
        bonusC: cents(credited.reduce((s, p) => s + (p.bonusC ?? 0), 0)),
        late: credited.some((p) => p.late),
        watchUntil,
      },
      tx,
    );
  }

  /**
   * Credits one confirmed output of a charge, once. Re-reads it from the chain first; prices it
   * at the charge's locked rate, or for a late payment at the lower of that and the current
   * rate (skipped this time when no fresh rate is to be had). Returns the credited row, or
   * undefined when there was nothing (more) to credit.
   */
  async function creditOutput(charge: ChargeRow, observed: ObservedOutput): Promise<PaymentRow | undefined> {
    const client = deps.clients[charge.currency];
    if (!client) return undefined;
    const existing = await repo.findPayment(charge.currency, observed.txid, observed.outKey);
    if (!existing || existing.state === 'credited' || existing.chargeId !== charge.id) return undefined;
    const verified = await client.verify(observed, charge.address);
    if (!verified || verified.valueBase !== existing.valueBase) return undefined;
    const blockTime = verified.blockTime === undefined ? existing.blockTime : new Date(verified.blockTime);
    const late = paidAt({ firstSeenAt: existing.firstSeenAt, blockTime }) > charge.expiresAt;
    let rateC = charge.rateC;
    if (late) {
      try {
        const quote = await deps.rates.quote(charge.currency);
        rateC = quote.rateC < rateC ? quote.rateC : rateC;
      } catch (e) {
        deps.log.warn({ err: e, txid: observed.txid }, 'late payment waits for a fresh rate');
        return undefined;
      }
    }
    const dec = DECIMALS[charge.currency];
    let creditC = creditCents(existing.valueBase, rateC, dec);
    const fee =
      charge.currency === 'trc20usdt' && creditC < USDT_FEE_BELOW_C ? settings.usdtSmallPaymentFeeC : 0;
    creditC = cents(Math.max(0, creditC - fee));
    const bonusC = percentOf(creditC, charge.bonusPct);
    const key = `${charge.currency}:${existing.txid}:${existing.outKey}`;
    const amount = `${formatCoins(existing.valueBase, dec)} ${LABEL[charge.currency]}`;
    return deps.db.transaction(async (tx) => {
      await repo.lockCharge(charge.id, tx);
      const won = await repo.markCredited(
        existing.id,
        {
          creditedAt: clock(),
          rateC,
          creditedC: creditC,
          bonusC,
          late,
          blockHeight: verified.blockHeight ?? existing.blockHeight,
          blockHash: verified.blockHash ?? existing.blockHash,
          blockTime,
        },
        tx,
      );
      if (!won) return undefined;
      if (creditC > 0) {
        const memo = `${amount} deposit${late ? ' (late)' : ''}${fee ? `, $${fee / 100} fee` : ''}, tx ${existing.txid.slice(0, 12)}…`;
        await deps.ledger.move(
          { userId: charge.userId, amountC: creditC, type: 'deposit', memo, idemKey: `deposit:${key}` },
          tx,
        );
        if (bonusC > 0) {
          await deps.ledger.move(
            {
              userId: charge.userId,
              amountC: bonusC,
              type: 'bonus',
              memo: `${charge.bonusPct}% bonus on a ${amount} deposit`,
              idemKey: `bonus:${key}`,
            },
            tx,
          );
        }
        await deps.referral.rewardLoad({ userId: charge.userId, loadC: creditC, loadKey: key }, tx);
      }
      await settleCharge(charge.id, tx);
      return { ...existing, state: 'credited' as const, creditedC: creditC, bonusC, late, rateC };
    });
  }

  /**
   * Reads a charge's address from the chain, records every output seen (pending ones too),
   * marks pending ones that vanished as dropped, credits the confirmed ones and settles the
   * charge. `onlyTxid` limits crediting to one transaction (staff). Returns what it credited;
   * 'idle' when the address has never been paid (nothing written).
   */
  async function scanCharge(
    charge: Pick<ChargeRow, 'id' | 'address' | 'currency' | 'createdAt' | 'status'> & {
      hasPayments?: boolean;
    },
    o: { onlyTxid?: string | undefined } = {},
  ): Promise<PaymentRow[] | 'idle'> {
    const client = deps.clients[charge.currency];
    if (!client) throw new ChainApiError(`${charge.currency} is not configured`);
    const outputs = await client.scanAddress(charge.address, {
      sinceMs: charge.createdAt.getTime() - TRON_HISTORY_SLACK_MS,
      withPending: charge.status !== 'paid' && charge.status !== 'partial',
    });
    if (outputs.length === 0 && charge.hasPayments === false) return 'idle';
    const now = clock();
    for (const out of outputs) await repo.upsertObserved(charge.id, charge.currency, out, now);
    await repo.markDropped(charge.id, outputs);
    const full = await repo.findChargeById(charge.id);
    if (!full) return [];
    const credited: PaymentRow[] = [];
    for (const out of outputs) {
      if (!out.confirmed || (o.onlyTxid && out.txid !== o.onlyTxid.toLowerCase())) continue;
      const row = await creditOutput(full, out);
      if (row) credited.push(row);
    }
    await deps.db.transaction((tx) => settleCharge(charge.id, tx));
    return credited;
  }

  /** One pass over one chain's due charges, with per-address back-off and chain-wide back-off on an outage. */
  async function watchChain(currency: CurrencyId): Promise<ChainPassResult> {
    const result: ChainPassResult = { currency, polled: 0, failed: 0, credited: 0, skipped: false };
    const now = clock();
    const state = (await repo.getWatchState(currency)) ?? {
      chain: currency,
      lastOkAt: null,
      lastErrorAt: null,
      lastError: null,
      failures: 0,
      backoffUntil: null,
    };
    if (state.backoffUntil && state.backoffUntil > now) return { ...result, skipped: true };
    const due = await repo.findDueCharges(currency, now, settings.watchBatchSize);
    const checked: string[] = [];
    const failed: { charge: DueCharge; error: Error }[] = [];
    let ok = 0;
    await pool(
      due,
      settings.watchConcurrency,
      async (charge) => {
        try {
          const r = await scanCharge({ ...charge, currency });
          checked.push(charge.id);
          ok++;
          if (r !== 'idle') result.credited += r.length;
        } catch (error) {
          failed.push({ charge, error: error as Error });
        }
      },
      // An outage: the first answers all failed, so the rest would too.
      () => ok === 0 && failed.length >= Math.min(5, due.length),
    );
    await repo.markChecked(checked, now);
    result.polled = checked.length + failed.length;
    result.failed = failed.length;
    const outage = failed.length > 0 && ok === 0;
    if (outage) {
      const failures = state.failures + 1;
      const delayMs = Math.min(settings.watchIntervalSeconds * 1000 * 2 ** (failures - 1), 600_000);
      await repo.saveWatchState({
        ...state,
        failures,
        lastErrorAt: now,
        lastError: (failed[0]?.error.message ?? 'error').slice(0, 500),
        backoffUntil: new Date(now.getTime() + delayMs),
      });
      deps.log.warn({ currency, failures, err: failed[0]?.error }, 'chain API unreachable; backing off');
      return result;
    }
    for (const f of failed) {
      deps.log.warn({ currency, chargeId: f.charge.id, err: f.error }, 'address poll failed');
      await repo.markCheckFailed(f.charge.id, f.charge.checkFailures, now);
    }
    await repo.saveWatchState({ ...state, lastOkAt: now, failures: 0, backoffUntil: null });
    return result;
  }

  return {
    scanCharge,
    watchChain,
    /** One pass over every configured chain (in parallel); marks charges that waited in vain expired first. */
    async watchOnce(): Promise<ChainPassResult[]> {
      await repo.expireCharges(clock());
      const currencies = Object.keys(deps.clients) as CurrencyId[];
      return Promise.all(currencies.map((c) => watchChain(c)));
    },
  };
}

/** The watcher's functions. */
export type PaymentWatcher = ReturnType<typeof createPaymentWatcher>;
