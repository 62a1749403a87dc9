/**
 * A chain API's request budget: requests are spaced to at most `perSecond` (wall-clock pacing)
 * and counted against `perDay` for the current UTC day. The watcher loads the day's count from
 * `payment_watch_state` before a pass and saves it after, so restarts and other workers share it;
 * a pass stops starting polls once the day's budget is spent.
 */
import type { CurrencyId } from '@pm/contracts';
import type { BudgetChain, RequestBudget } from './payments.config.ts';

/** The budgeted API of each currency: Esplora per chain, TronGrid for USDT TRC-20. */
export const BUDGET_CHAIN: Record<CurrencyId, BudgetChain> = { btc: 'btc', ltc: 'ltc', trc20usdt: 'tron' };

/** The day's budget is spent: no more requests until the next UTC day. */
export class BudgetExhaustedError extends Error {
  override name = 'BudgetExhaustedError';
}

/** The UTC day of `ms` as `YYYY-MM-DD`. */
export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Builds one chain's budget over `fetch`; `now` is the (injectable) clock that decides the day. */
export function createRequestBudget(budget: RequestBudget, f: typeof fetch, now: () => number) {
  let day = utcDay(now());
  let used = 0;
  /** Wall-clock time (ms) before which the next request may not start. */
  let nextSlot = 0;
  const spacingMs = 1000 / budget.perSecond;

  const roll = () => {
    const today = utcDay(now());
    if (today !== day) {
      day = today;
      used = 0;
    }
  };

  async function pace(): Promise<void> {
    const t = performance.now();
    const start = Math.max(t, nextSlot);
    nextSlot = start + spacingMs;
    if (start > t) await new Promise((r) => setTimeout(r, start - t));
  }

  return {
    /** `fetch` through the budget: paced, counted, refused once the day's budget is spent. */
    fetch: (async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
      roll();
      if (used >= budget.perDay)
        throw new BudgetExhaustedError(`day budget of ${budget.perDay} requests spent`);
      used++;
      await pace();
      return f(input, init);
    }) as typeof fetch,
    /** Requests left today. */
    remaining(): number {
      roll();
      return Math.max(0, budget.perDay - used);
    },
    /** The day and its count, to save. */
    snapshot(): { day: string; used: number } {
      roll();
      return { day, used };
    },
    /** Takes the stored count (the larger one wins: another worker may have spent more). */
    load(stored: { day: string | null; used: number }): void {
      roll();
      if (stored.day === day) used = Math.max(used, stored.used);
    },
  };
}

/** One chain's request budget. */
export type RequestBudgetHandle = ReturnType<typeof createRequestBudget>;
