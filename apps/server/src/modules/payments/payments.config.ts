/**
 * The payments module's settings: the operator's watch-only keys, the chain and rate APIs, and
 * the business knobs. `main.ts` reads them from the environment (`readPaymentsEnv`); the launcher
 * and tests pass them as data.
 */
import type { CurrencyId } from '@pm/contracts';
import { createEnvReader } from '../../platform/env-reader.ts';
import { parseAccountKey } from './payments.address.ts';

/** One Esplora instance (Blockstream, mempool.space, litecoinspace). */
export interface EsploraSettings {
  /** Base URL ending in `/api` (no trailing slash). */
  url: string;
  /** Sent as `Authorization: Bearer …` when set (hosted Esplora plans). */
  apiKey?: string | undefined;
}

/**
 * Confirmations by amount: the first tier whose `upToC` (cents, at the charge's locked rate)
 * covers the output applies; the last tier (`upToC: null`) covers the rest. A plain number is one
 * tier for every amount.
 */
export type ConfirmationTiers = number | { upToC: number | null; blocks: number }[];

/** A chain API's request budget: at most `perSecond` requests a second and `perDay` a UTC day. */
export interface RequestBudget {
  perSecond: number;
  perDay: number;
}

/** The chain APIs a budget applies to (TRON's is TronGrid's, for USDT TRC-20). */
export type BudgetChain = 'btc' | 'ltc' | 'tron';

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
    /** Both sources are asked; a quote is refused when they differ by more than this (basis points). */
    maxSpreadBps: number;
  };
  /** Confirmations before a Bitcoin or Litecoin payment is credited, by amount (TRC-20: solidified). */
  confirmations: { btc: ConfirmationTiers; ltc: ConfirmationTiers };
  /** A payment confirmed more than this after the charge's expiry is late (lower of locked and current rate). */
  lateAllowanceMs: number;
  /** A charge credits at most this many times its amount (never past MAX_DEPOSIT_C); the rest is held for staff. */
  capMultiple: number;
  /** Open (new or pending, unexpired) charges one customer may have at once. */
  maxOpenCharges: number;
  /** Request budget per chain API (defaults under the public services' free limits). */
  budgets: Record<BudgetChain, RequestBudget>;
  /** Bonus percent credited on top of every payment (0-100), snapshotted into each charge. */
  bonusPct: number;
  /** How long after expiry an address is still watched, so late payments are credited. */
  graceMs: number;
  /** Fee deducted from a USDT TRC-20 payment worth less than the $10 minimum (rules §5: about $3). */
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

/** The public APIs operators use, with the defaults of rules §9 and apps/server/README.md ("Payments"). */
export const DEFAULT_PAYMENTS_SETTINGS: PaymentsSettings = {
  xpubs: {},
  esplora: { btc: { url: 'https://blockstream.info/api' }, ltc: { url: 'https://litecoinspace.org/api' } },
  trongrid: { url: 'https://api.trongrid.io', usdtContract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
  rates: {
    krakenUrl: 'https://api.kraken.com',
    fallbackUrl: 'https://api.coinbase.com',
    maxAgeMs: 120_000,
    maxSpreadBps: 100,
  },
  // BTC: 1 up to $500, 3 up to $5,000, 6 above; LTC (blocks 4x as often): 3, 6 and 12.
  confirmations: {
    btc: [
      { upToC: 50_000, blocks: 1 },
      { upToC: 500_000, blocks: 3 },
      { upToC: null, blocks: 6 },
    ],
    ltc: [
      { upToC: 50_000, blocks: 3 },
      { upToC: 500_000, blocks: 6 },
      { upToC: null, blocks: 12 },
    ],
  },
  lateAllowanceMs: 3600_000,
  capMultiple: 10,
  maxOpenCharges: 3,
  // TronGrid: 100,000 requests a day and 15 a second per API key. The public Esplora instances
  // (blockstream.info, litecoinspace) publish no quota: 20,000 a day at 5 a second is polite.
  budgets: {
    btc: { perSecond: 5, perDay: 20_000 },
    ltc: { perSecond: 5, perDay: 20_000 },
    tron: { perSecond: 10, perDay: 50_000 },
  },
  bonusPct: 0,
  graceMs: 24 * 3600_000,
  usdtSmallPaymentFeeC: 300,
  watchConcurrency: 16,
  watchBatchSize: 20_000,
  watchIntervalSeconds: 30,
};

/** Required confirmations for an output worth `valueC` cents under `tiers`. */
export function confirmationsFor(tiers: ConfirmationTiers, valueC: number): number {
  if (typeof tiers === 'number') return tiers;
  for (const t of tiers) if (t.upToC === null || valueC <= t.upToC) return t.blocks;
  return tiers.at(-1)?.blocks ?? 1;
}

/** The most confirmations any amount needs under `tiers`. */
export function maxConfirmations(tiers: ConfirmationTiers): number {
  return typeof tiers === 'number' ? tiers : Math.max(...tiers.map((t) => t.blocks));
}

/**
 * `"1@500,3@5000,6"`: 1 confirmation up to $500, 3 up to $5,000, 6 above; a plain `"2"` is one
 * tier. Null when malformed (blocks 1-100, rising dollar bounds, the last without a bound).
 */
export function parseConfirmationTiers(text: string): ConfirmationTiers | null {
  const parts = text.split(',').map((p) => p.trim());
  const tiers: { upToC: number | null; blocks: number }[] = [];
  for (const [i, part] of parts.entries()) {
    const m = /^(\d{1,3})(?:@(\d{1,9}))?$/.exec(part);
    if (!m) return null;
    const blocks = Number(m[1]);
    const upToC = m[2] === undefined ? null : Number(m[2]) * 100;
    const last = i === parts.length - 1;
    if (blocks < 1 || blocks > 100 || (upToC === null) !== last) return null;
    const prev = tiers.at(-1);
    if (prev && upToC !== null && (prev.upToC ?? 0) >= upToC) return null;
    tiers.push({ upToC, blocks });
  }
  return tiers.length === 1 ? (tiers[0] as { blocks: number }).blocks : tiers;
}

/**
 * Reads the payments settings from environment variables (listed in the README's configuration
 * table), pushing a message for each bad value onto `problems`.
 */
export function readPaymentsEnv(env: NodeJS.ProcessEnv, problems: string[]): PaymentsSettings {
  const d = DEFAULT_PAYMENTS_SETTINGS;
  const { str, opt, int, url } = createEnvReader(env, problems);
  const tiers = (name: string, fallback: ConfirmationTiers) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const t = parseConfirmationTiers(raw);
    if (t === null)
      problems.push(`${name} must be like "1@500,3@5000,6" (blocks@dollars, the last without), got "${raw}"`);
    return t ?? fallback;
  };
  const budget = (name: string, fallback: RequestBudget): RequestBudget => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const m = /^(\d{1,4})\/(\d{1,9})$/.exec(raw);
    const perSecond = Number(m?.[1]);
    const perDay = Number(m?.[2]);
    if (!m || perSecond < 1 || perDay < 100) {
      problems.push(`${name} must be "<per second>/<per day>" (e.g. "5/15000"), got "${raw}"`);
      return fallback;
    }
    return { perSecond, perDay };
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
      maxSpreadBps: int('RATES_MAX_SPREAD_BPS', d.rates.maxSpreadBps, 1, 2000),
    },
    confirmations: {
      btc: tiers('CONFIRMATIONS_BTC', d.confirmations.btc),
      ltc: tiers('CONFIRMATIONS_LTC', d.confirmations.ltc),
    },
    lateAllowanceMs: int('PAYMENTS_LATE_ALLOWANCE_MIN', d.lateAllowanceMs / 60_000, 0, 24 * 60) * 60_000,
    capMultiple: int('PAYMENTS_CAP_MULTIPLE', d.capMultiple, 1, 1000),
    maxOpenCharges: int('PAYMENTS_MAX_OPEN_CHARGES', d.maxOpenCharges, 1, 100),
    budgets: {
      btc: budget('PAYMENTS_BUDGET_BTC', d.budgets.btc),
      ltc: budget('PAYMENTS_BUDGET_LTC', d.budgets.ltc),
      tron: budget('PAYMENTS_BUDGET_TRON', d.budgets.tron),
    },
    bonusPct: int('PAYMENTS_BONUS_PCT', d.bonusPct, 0, 100),
    graceMs: int('PAYMENTS_GRACE_HOURS', d.graceMs / 3600_000, 0, 24 * 30) * 3600_000,
    usdtSmallPaymentFeeC: int('USDT_SMALL_PAYMENT_FEE_C', d.usdtSmallPaymentFeeC, 0, 1000),
    watchConcurrency: int('PAYMENTS_WATCH_CONCURRENCY', d.watchConcurrency, 1, 256),
    watchBatchSize: int('PAYMENTS_WATCH_BATCH', d.watchBatchSize, 1, 1_000_000),
    watchIntervalSeconds: int('PAYMENTS_WATCH_INTERVAL_S', d.watchIntervalSeconds, 5, 60),
  };
}
