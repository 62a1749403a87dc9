/**
 * The chain watcher: polls the open charges' addresses on a back-off schedule and within each
 * chain's request budget, records what it sees, and credits each confirmed output exactly once.
 * Exactly-once rests on keys, not on timing: an output's row is unique by (currency, txid,
 * vout | recipient), it turns 'credited' only through `UPDATE … WHERE state <> 'credited'`, and
 * that update, its ledger records (keyed by the same output), any held credit and the charge's
 * new status commit in one transaction. A pass first reads every chain, then credits what it
 * found in chain order (earliest paid first), so "first load" means first on chain.
 */
import type { CurrencyId } from '@pm/contracts';
import { forEachItem, type ItemFailures, UNREPORTED } from '../../platform/jobs.ts';
import { creditCents, DECIMALS } from './payments.amounts.ts';
import { BudgetExhaustedError, type RequestBudgetHandle } from './payments.budget.ts';
import { ChainApiError, type ChainClient } from './payments.chains.ts';
import {
  type Candidate,
  type CreditingDeps,
  createCrediting,
  type OnCredited,
  RECHECK_MS,
} from './payments.crediting.ts';
import { nextCheckAt, OPEN_POLL } from './payments.pricing.ts';
import type { ChargeRow, DueCharge, PaymentRow } from './payments.repository.ts';

/** What the watcher is built from: what crediting needs, and each chain's request budget. */
export interface WatcherDeps extends CreditingDeps {
  /** Each chain's request budget (none: unbudgeted, e.g. a test that builds clients itself). */
  budgets?: Partial<Record<CurrencyId, RequestBudgetHandle>>;
}

/** One chain's pass: charges polled, polls that failed, outputs credited, and whether the chain was backed off. */
export interface ChainPassResult {
  currency: CurrencyId;
  polled: number;
  failed: number;
  credited: number;
  skipped: boolean;
  /** Polls left for later because the day's request budget ran out. */
  overBudget: boolean;
}

/** TRC-20 history is read from a little before the charge existed (clock skew between us and TRON). */
const TRON_HISTORY_SLACK_MS = 3600_000;
/** Requests one poll may cost (address list, then a transaction and the tip for a credit). */
const POLL_COST = 3;

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
  const { settleCharge, creditInOrder } = createCrediting(deps);

  /** Minimum depth for an output of `charge`: by its value at the locked rate. */
  function depthFor(charge: ChargeRow, valueBase: bigint): number {
    const client = deps.clients[charge.currency];
    return client?.confirmationsFor(creditCents(valueBase, charge.rateC, DECIMALS[charge.currency])) ?? 1;
  }

  /**
   * Reads a charge's address from the chain, records every output seen (pending ones too),
   * marks pending ones that vanished as dropped, re-reads the confirmed ones (address, value,
   * depth by amount) and answers those ready to credit. 'idle' when the address has never been
   * paid (nothing written). `onlyTxid` limits crediting to one transaction (staff).
   */
  async function collect(
    charge: Pick<ChargeRow, 'id' | 'address' | 'currency' | 'createdAt' | 'status'> & {
      hasPayments?: boolean;
    },
    o: { onlyTxid?: string | undefined } = {},
  ): Promise<{ ready: Candidate[]; pending: boolean } | 'idle'> {
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
    const pending = outputs.some((out) => !out.confirmed);
    if (!full) return { ready: [], pending };
    const known = new Map((await repo.findPayments([charge.id])).map((p) => [`${p.txid}:${p.outKey}`, p]));
    const ready: Candidate[] = [];
    for (const out of outputs) {
      if (!out.confirmed || (o.onlyTxid && out.txid !== o.onlyTxid.toLowerCase())) continue;
      const row = known.get(`${out.txid}:${out.outKey}`);
      if (!row || row.state === 'credited') continue;
      const v = await client.verify(
        { ...out, valueBase: row.valueBase },
        charge.address,
        depthFor(full, row.valueBase),
      );
      if (v.state === 'deep') ready.push({ charge: full, verified: v.output, depth: v.depth });
      else if (v.state === 'mismatch' || v.state === 'missing') {
        deps.log.warn(
          { chargeId: charge.id, txid: out.txid, verified: v },
          'listed output not confirmed by a re-read',
        );
      }
    }
    return { ready, pending };
  }

  /** Scans one charge and credits what it found (staff deep-check; `onCredited` runs in each credit's transaction). */
  async function scanCharge(
    charge: Parameters<typeof collect>[0],
    o: { onlyTxid?: string | undefined; onCredited?: OnCredited | undefined } = {},
  ): Promise<PaymentRow[] | 'idle'> {
    const found = await collect(charge, o);
    if (found === 'idle') return 'idle';
    const credited = await creditInOrder(found.ready, o.onCredited);
    await deps.db.transaction((tx) => settleCharge(charge.id, tx));
    return credited;
  }

  /** Re-reads credited outputs that are not final yet: final once deep, flagged for staff if gone. */
  async function recheckCredits(currency: CurrencyId, client: ChainClient, budget?: RequestBudgetHandle) {
    const now = clock();
    for (const p of await repo.findRecheckDue(currency, now, 200)) {
      if (budget && budget.remaining() < POLL_COST) return;
      const v = await client.verify(
        { txid: p.txid, outKey: p.outKey, valueBase: p.valueBase, confirmed: true },
        p.address,
        client.finalDepth,
      );
      if (v.state === 'deep') await repo.updatePayment(p.id, { finalAt: now, recheckAt: null });
      else if (v.state === 'shallow')
        await repo.updatePayment(p.id, { recheckAt: new Date(now.getTime() + RECHECK_MS) });
      else {
        await repo.updatePayment(p.id, { vanishedAt: now, recheckAt: null });
        deps.log.error(
          { currency, txid: p.txid, chargeId: p.chargeId, creditedC: p.creditedC, verified: v },
          'a credited payment vanished from the chain: flagged for staff',
        );
      }
    }
  }

  /** One chain's reading: due charges within the budget, with per-address and chain-wide back-off. */
  async function readChain(
    currency: CurrencyId,
    candidates: Candidate[],
    touched: Set<string>,
  ): Promise<ChainPassResult> {
    const result: ChainPassResult = {
      currency,
      polled: 0,
      failed: 0,
      credited: 0,
      skipped: false,
      overBudget: false,
    };
    const client = deps.clients[currency] as ChainClient;
    const budget = deps.budgets?.[currency];
    const now = clock();
    const state = (await repo.getWatchState(currency)) ?? {
      chain: currency,
      lastOkAt: null,
      lastErrorAt: null,
      lastError: null,
      failures: 0,
      backoffUntil: null,
      budgetDay: null,
      budgetUsed: 0,
    };
    budget?.load({ day: state.budgetDay, used: state.budgetUsed });
    const saveState = (s: typeof state) => repo.saveWatchState({ ...s, ...budgetFields() });
    const budgetFields = () => {
      const snap = budget?.snapshot();
      return snap ? { budgetDay: snap.day, budgetUsed: snap.used } : {};
    };
    if (state.backoffUntil && state.backoffUntil > now) return { ...result, skipped: true };
    const due = await repo.findDueCharges(currency, now, settings.watchBatchSize);
    const checked: DueCharge[] = [];
    const failed: { charge: DueCharge; error: Error }[] = [];
    let ok = 0;
    /** Charges with a payment on its way (unconfirmed, or about to be credited): polled again soon. */
    const waiting = new Set<string>();
    await pool(
      due,
      settings.watchConcurrency,
      async (charge) => {
        // A poll's first request is counted as it starts (before this worker yields).
        if (budget && budget.remaining() < POLL_COST) {
          result.overBudget = true;
          return;
        }
        try {
          const r = await collect({ ...charge, currency });
          checked.push(charge);
          ok++;
          if (r !== 'idle') {
            candidates.push(...r.ready);
            touched.add(charge.id);
            if (r.pending || r.ready.length > 0) waiting.add(charge.id);
          }
        } catch (error) {
          // Out of budget is no failure of the address: it stays due for tomorrow's budget.
          if (error instanceof BudgetExhaustedError) result.overBudget = true;
          else failed.push({ charge, error: error as Error });
        }
      },
      // An outage: the first answers all failed, so the rest would too.
      () => result.overBudget || (ok === 0 && failed.length >= Math.min(5, due.length)),
    );
    await repo.markChecked(
      checked.map((c) => ({
        id: c.id,
        nextCheckAt: nextCheckAt({
          now,
          createdAt: c.createdAt,
          expiresAt: c.expiresAt,
          watchUntil: c.watchUntil,
          hasPending: waiting.has(c.id),
          intervalMs: settings.watchIntervalSeconds * 1000,
          pace: currency === 'trc20usdt' ? OPEN_POLL.fast : OPEN_POLL.slow,
        }),
      })),
      now,
    );
    result.polled = checked.length + failed.length;
    result.failed = failed.length;
    if (failed.length > 0 && ok === 0) {
      const failures = state.failures + 1;
      const delayMs = Math.min(settings.watchIntervalSeconds * 1000 * 2 ** (failures - 1), 600_000);
      await saveState({
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
    try {
      await recheckCredits(currency, client, budget);
    } catch (e) {
      deps.log.warn({ currency, err: e }, 're-check of credited payments failed; next pass');
    }
    if (result.overBudget) deps.log.warn({ currency }, "the day's chain request budget is spent; polls wait");
    await saveState({ ...state, lastOkAt: now, failures: 0, backoffUntil: null });
    return result;
  }

  return {
    scanCharge,
    /**
     * One pass over every configured chain: marks charges that waited in vain expired, reads every
     * chain, then credits in chain order; a charge whose status update throws goes to `failures`.
     */
    async watchOnce(failures: ItemFailures = UNREPORTED): Promise<ChainPassResult[]> {
      await repo.expireCharges(clock());
      const currencies = Object.keys(deps.clients) as CurrencyId[];
      const candidates: Candidate[] = [];
      const touched = new Set<string>();
      const results = await Promise.all(currencies.map((c) => readChain(c, candidates, touched)));
      const credited = await creditInOrder(candidates);
      // Every charge whose address showed payments: status from what is now on record.
      await forEachItem([...touched], { idOf: (id) => id, failures }, (id) =>
        deps.db.transaction((tx) => settleCharge(id, tx)),
      );
      for (const r of results) r.credited = credited.filter((p) => p.currency === r.currency).length;
      return results;
    },
  };
}

/** The watcher's functions. */
export type PaymentWatcher = ReturnType<typeof createPaymentWatcher>;
