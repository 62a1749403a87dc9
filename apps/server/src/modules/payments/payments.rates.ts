/**
 * Exchange rates: Kraken's public ticker first, Coinbase's spot price as the fallback, converted
 * to integer cents per coin from the decimal strings the exchanges send (never through a float).
 * A quote is reused for a few seconds; one older than `maxAgeMs` is never used.
 */
import { AppError, type CurrencyId } from '@pm/contracts';
import type { Cents } from '@pm/money';
import { dollarsToCents } from './payments.amounts.ts';
import type { PaymentsSettings } from './payments.config.ts';

/** A rate: cents per whole coin, where it came from, and when it was fetched (ms). */
export interface Quote {
  rateC: Cents;
  source: 'kraken' | 'coinbase';
  at: number;
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

/** Builds the rate source: `quote(currency)` answers a fresh quote or throws UNAVAILABLE. */
export function createRateSource(deps: RateSourceDeps) {
  const f = deps.fetch ?? fetch;
  const now = deps.now ?? Date.now;
  const cache = new Map<CurrencyId, Quote>();

  async function fetchQuote(currency: CurrencyId): Promise<Quote> {
    const problems: string[] = [];
    try {
      const body = await getJson(
        f,
        `${deps.settings.krakenUrl}/0/public/Ticker?pair=${KRAKEN[currency].pair}`,
      );
      const rateC = dollarsToCents(readKraken(body, currency));
      if (rateC === null) throw new Error('kraken: unusable price');
      return { rateC, source: 'kraken', at: now() };
    } catch (e) {
      problems.push((e as Error).message);
    }
    try {
      const body = (await getJson(
        f,
        `${deps.settings.fallbackUrl}/v2/prices/${COINBASE[currency]}/spot`,
      )) as {
        data?: { amount?: unknown };
      };
      const rateC = typeof body.data?.amount === 'string' ? dollarsToCents(body.data.amount) : null;
      if (rateC === null) throw new Error('coinbase: unusable price');
      return { rateC, source: 'coinbase', at: now() };
    } catch (e) {
      problems.push((e as Error).message);
    }
    throw new Error(problems.join('; '));
  }

  return {
    /**
     * A quote at most `maxAgeMs` old: from memory when younger than a few seconds, else fetched
     * (Kraken, then Coinbase). When neither answers and the last quote is too old, throws
     * UNAVAILABLE: a charge is never priced with a stale rate.
     */
    async quote(currency: CurrencyId): Promise<Quote> {
      const cached = cache.get(currency);
      if (cached && now() - cached.at < REUSE_MS) return cached;
      try {
        const fresh = await fetchQuote(currency);
        cache.set(currency, fresh);
        return fresh;
      } catch (e) {
        if (cached && now() - cached.at <= deps.settings.maxAgeMs) return cached;
        throw new AppError('UNAVAILABLE', {
          message: `no fresh ${currency} rate: ${(e as Error).message}`,
          userMessage: 'Exchange rate unavailable. Please try again later.',
          details: { errorCode: 'rateUnavailable' },
        });
      }
    },
  };
}
