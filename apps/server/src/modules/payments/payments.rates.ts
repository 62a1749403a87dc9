/**
 * Exchange rates: Kraken's public ticker and Coinbase's spot price, both asked, converted to
 * integer cents per coin from the decimal strings the exchanges send (never through a float).
 * A quote is reused for a few seconds; one older than `maxAgeMs` is never used.
 */
import { AppError, type CurrencyId } from '@pm/contracts';
import { type Cents, cents } from '@pm/money';
import { dollarsToCents } from './payments.amounts.ts';
import type { PaymentsSettings } from './payments.config.ts';

/** A rate: cents per whole coin, where it came from, and when it was fetched (ms). */
export interface Quote {
  rateC: Cents;
  source: 'kraken+coinbase' | 'kraken' | 'coinbase';
  at: number;
}

/** The two sources differ by more than the band: no quote. */
class RateDisagreement extends Error {
  override name = 'RateDisagreement';
}

const KRAKEN: Record<CurrencyId, { pair: string; key: string }> = {
  btc: { pair: 'XBTUSD', key: 'XXBTZUSD' },
  ltc: { pair: 'LTCUSD', key: 'XLTCZUSD' },
  trc20usdt: { pair: 'USDTUSD', key: 'USDTZUSD' },
};
const COINBASE: Record<CurrencyId, string> = { btc: 'BTC-USD', ltc: 'LTC-USD', trc20usdt: 'USDT-USD' };

/** Quotes younger than this are answered from memory (exchanges cache for about as long anyway). */
const REUSE_MS = 10_000;
const TIMEOUT_MS = 5_000;

/** What the rate source is built from. */
export interface RateSourceDeps {
  settings: PaymentsSettings['rates'];
  fetch?: typeof fetch;
  now?: () => number;
}

/** The rate source's functions. */
export type RateSource = ReturnType<typeof createRateSource>;

async function getJson(f: typeof fetch, url: string): Promise<unknown> {
  const res = await f(url, {
    signal: AbortSignal.timeout(TIMEOUT_MS),
    headers: { accept: 'application/json' },
  });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res.json();
}

/** Kraken's last trade price (`c[0]`) under the answer's own key; throws on an error answer. */
function readKraken(body: unknown, currency: CurrencyId): string {
  const b = body as { error?: unknown[]; result?: Record<string, { c?: unknown[] }> };
  if (Array.isArray(b.error) && b.error.length > 0) throw new Error(`kraken: ${b.error.join(', ')}`);
  const price = b.result?.[KRAKEN[currency].key]?.c?.[0];
  if (typeof price !== 'string') throw new Error(`kraken: no ${KRAKEN[currency].key} price`);
  return price;
}

/** How far apart two quotes are, in basis points of the lower one. */
export function spreadBps(a: number, b: number): number {
  const lo = Math.min(a, b);
  return lo <= 0 ? Number.POSITIVE_INFINITY : (Math.abs(a - b) * 10_000) / lo;
}

/**
 * Builds the rate source: `quote(currency)` answers a fresh quote or throws UNAVAILABLE. Both
 * exchanges are asked; their mean is the rate when they agree within `maxSpreadBps`. When they
 * disagree no quote is given. When one is down, the other's price is used only if it lies within
 * the band of the last two-source rate (at most an hour old): one exchange alone never sets a
 * price nobody confirmed.
 */
export function createRateSource(deps: RateSourceDeps) {
  const f = deps.fetch ?? fetch;
  const now = deps.now ?? Date.now;
  const cache = new Map<CurrencyId, Quote>();
  /** The last rate both sources agreed on, per currency (the anchor for a one-source quote). */
  const agreed = new Map<CurrencyId, Quote>();
  const ANCHOR_MAX_AGE_MS = 3600_000;

  async function kraken(currency: CurrencyId): Promise<Cents> {
    const body = await getJson(f, `${deps.settings.krakenUrl}/0/public/Ticker?pair=${KRAKEN[currency].pair}`);
    const rateC = dollarsToCents(readKraken(body, currency));
    if (rateC === null) throw new Error('kraken: unusable price');
    return rateC;
  }

  async function coinbase(currency: CurrencyId): Promise<Cents> {
    const body = (await getJson(f, `${deps.settings.fallbackUrl}/v2/prices/${COINBASE[currency]}/spot`)) as {
      data?: { amount?: unknown };
    };
    const rateC = typeof body.data?.amount === 'string' ? dollarsToCents(body.data.amount) : null;
    if (rateC === null) throw new Error('coinbase: unusable price');
    return rateC;
  }

  async function fetchQuote(currency: CurrencyId): Promise<Quote> {
    const [k, c] = await Promise.allSettled([kraken(currency), coinbase(currency)]);
    const at = now();
    if (k.status === 'fulfilled' && c.status === 'fulfilled') {
      const spread = spreadBps(k.value, c.value);
      if (spread > deps.settings.maxSpreadBps) {
        throw new RateDisagreement(
          `${currency}: kraken ${k.value} and coinbase ${c.value} differ by ${spread.toFixed(0)} bps (band ${deps.settings.maxSpreadBps})`,
        );
      }
      const quote: Quote = {
        rateC: cents(Math.floor((k.value + c.value) / 2)),
        source: 'kraken+coinbase',
        at,
      };
      agreed.set(currency, quote);
      return quote;
    }
    const one = k.status === 'fulfilled' ? k.value : c.status === 'fulfilled' ? c.value : undefined;
    const problems = [k, c].flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : []));
    if (one === undefined) throw new Error(problems.join('; '));
    const anchor = agreed.get(currency);
    if (!anchor || at - anchor.at > ANCHOR_MAX_AGE_MS) {
      throw new Error(`${currency}: one source only (${problems.join('; ')}) and no recent agreed rate`);
    }
    if (spreadBps(one, anchor.rateC) > deps.settings.maxSpreadBps) {
      throw new RateDisagreement(
        `${currency}: the one source left (${one}) moved past the band from ${anchor.rateC}`,
      );
    }
    return { rateC: one, source: k.status === 'fulfilled' ? 'kraken' : 'coinbase', at };
  }

  return {
    /**
     * A quote at most `maxAgeMs` old: from memory when younger than a few seconds, else fetched.
     * When no quote can be had (sources down or disagreeing) and the last one is too old, throws
     * UNAVAILABLE: a charge is never priced with a stale or unconfirmed rate.
     */
    async quote(currency: CurrencyId): Promise<Quote> {
      const cached = cache.get(currency);
      if (cached && now() - cached.at < REUSE_MS) return cached;
      try {
        const fresh = await fetchQuote(currency);
        cache.set(currency, fresh);
        return fresh;
      } catch (e) {
        // Disagreeing sources are news, not an outage: an older quote does not paper over them.
        if (!(e instanceof RateDisagreement) && cached && now() - cached.at <= deps.settings.maxAgeMs) {
          return cached;
        }
        throw new AppError('UNAVAILABLE', {
          message: `no fresh ${currency} rate: ${(e as Error).message}`,
          userMessage: 'Exchange rate unavailable. Please try again later.',
          details: { errorCode: 'rateUnavailable' },
        });
      }
    },
  };
}
