/**
 * The payments module's settings: the operator's watch-only keys, the chain and rate APIs, and
 * the business knobs. `main.ts` reads them from the environment (`readPaymentsEnv`); the launcher
 * and tests pass them as data.
 */
import type { CurrencyId } from '@pm/contracts';
import { parseAccountKey } from './payments.address.ts';

/** One Esplora instance (Blockstream, mempool.space, litecoinspace). */
export interface EsploraSettings {
  /** Base URL ending in `/api` (no trailing slash). */
  url: string;
  /** Sent as `Authorization: Bearer …` when set (hosted Esplora plans). */
  apiKey?: string | undefined;
}

/** Everything the payments module needs from outside. */
export interface PaymentsSettings {
  /** Account-level extended public key per currency; a currency without one cannot be charged. */
  xpubs: Partial<Record<CurrencyId, string>>;
  esplora: { btc: EsploraSettings; ltc: EsploraSettings };
  trongrid: {
    url: string;
    /** Sent as `TRON-PRO-API-KEY`. */
    apiKey?: string | undefined;
    /** The USDT TRC-20 contract; transfers of any other token are ignored. */
    usdtContract: string;
  };
  rates: {
    /** Kraken's API base (`/0/public/Ticker` is appended). */
    krakenUrl: string;
    /** Coinbase's API base (`/v2/prices/{COIN}-USD/spot`), asked when Kraken fails. */
    fallbackUrl: string;
    /** A quote older than this refuses the charge. */
    maxAgeMs: number;
  };
  /** Confirmations before a Bitcoin or Litecoin payment is credited (TRC-20: solidified). */
  confirmations: { btc: number; ltc: number };
  /** Bonus percent credited on top of every payment (0-100), snapshotted into each charge. */
  bonusPct: number;
  /** How long after expiry an address is still watched, so late payments are credited. */
  graceMs: number;
  /** Fee deducted from a USDT TRC-20 payment worth less than the $10 minimum (SPEC 5: about $3). */
  usdtSmallPaymentFeeC: number;
  /** Addresses the watcher asks about at once. */
  watchConcurrency: number;
  /** Most charges one watcher pass looks at (the oldest-checked first). */
  watchBatchSize: number;
  /** Seconds between watcher passes (the cron runs every minute; passes in between are chained). */
  watchIntervalSeconds: number;
  /** The HTTP client for chain and rate APIs (tests put faults between the watcher and the simulator). */
  fetch?: typeof fetch | undefined;
}

/** The public APIs operators use, with the defaults of SPEC 9 and REFERENCE.md. */
export const DEFAULT_PAYMENTS_SETTINGS: PaymentsSettings = {
  xpubs: {},
  esplora: { btc: { url: 'https://blockstream.info/api' }, ltc: { url: 'https://litecoinspace.org/api' } },
  trongrid: { url: 'https://api.trongrid.io', usdtContract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
  rates: { krakenUrl: 'https://api.kraken.com', fallbackUrl: 'https://api.coinbase.com', maxAgeMs: 120_000 },
  confirmations: { btc: 1, ltc: 3 },
  bonusPct: 0,
  graceMs: 24 * 3600_000,
  usdtSmallPaymentFeeC: 300,
  watchConcurrency: 16,
  watchBatchSize: 20_000,
  watchIntervalSeconds: 30,
};

/**
 * Reads the payments settings from environment variables (listed in the README's configuration
 * table), pushing a message for each bad value onto `problems`.
 */
export function readPaymentsEnv(env: NodeJS.ProcessEnv, problems: string[]): PaymentsSettings {
  const d = DEFAULT_PAYMENTS_SETTINGS;
  const str = (name: string, fallback: string) => env[name]?.trim() || fallback;
  const opt = (name: string) => env[name]?.trim() || undefined;
  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer ${min}-${max}, got "${raw}"`);
      return fallback;
    }
    return n;
  };
  const url = (name: string, fallback: string) => {
    const v = str(name, fallback).replace(/\/+$/, '');
    try {
      new URL(v);
    } catch {
      problems.push(`${name} must be a URL, got "${v}"`);
    }
    return v;
  };
  const xpubs: PaymentsSettings['xpubs'] = {};
  for (const [currency, name] of [
    ['btc', 'PAYMENTS_XPUB_BTC'],
    ['ltc', 'PAYMENTS_XPUB_LTC'],
    ['trc20usdt', 'PAYMENTS_XPUB_TRON'],
  ] as const) {
    const v = opt(name);
    if (!v) continue;
    try {
      parseAccountKey(currency, v);
      xpubs[currency] = v;
    } catch (e) {
      problems.push(`${name}: ${(e as Error).message}`);
    }
  }
  return {
    xpubs,
    esplora: {
      btc: { url: url('ESPLORA_BTC_URL', d.esplora.btc.url), apiKey: opt('ESPLORA_BTC_API_KEY') },
      ltc: { url: url('ESPLORA_LTC_URL', d.esplora.ltc.url), apiKey: opt('ESPLORA_LTC_API_KEY') },
    },
    trongrid: {
      url: url('TRONGRID_URL', d.trongrid.url),
      apiKey: opt('TRONGRID_API_KEY'),
      usdtContract: str('TRON_USDT_CONTRACT', d.trongrid.usdtContract),
    },
    rates: {
      krakenUrl: url('RATES_KRAKEN_URL', d.rates.krakenUrl),
      fallbackUrl: url('RATES_FALLBACK_URL', d.rates.fallbackUrl),
      maxAgeMs: int('RATES_MAX_AGE_S', d.rates.maxAgeMs / 1000, 10, 3600) * 1000,
    },
    confirmations: {
      btc: int('CONFIRMATIONS_BTC', d.confirmations.btc, 1, 100),
      ltc: int('CONFIRMATIONS_LTC', d.confirmations.ltc, 1, 100),
    },
    bonusPct: int('PAYMENTS_BONUS_PCT', d.bonusPct, 0, 100),
    graceMs: int('PAYMENTS_GRACE_HOURS', d.graceMs / 3600_000, 0, 24 * 30) * 3600_000,
    usdtSmallPaymentFeeC: int('USDT_SMALL_PAYMENT_FEE_C', d.usdtSmallPaymentFeeC, 0, 1000),
    watchConcurrency: int('PAYMENTS_WATCH_CONCURRENCY', d.watchConcurrency, 1, 256),
    watchBatchSize: int('PAYMENTS_WATCH_BATCH', d.watchBatchSize, 1, 1_000_000),
    watchIntervalSeconds: int('PAYMENTS_WATCH_INTERVAL_S', d.watchIntervalSeconds, 5, 60),
  };
}
