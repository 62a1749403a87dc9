import { STAFF_PERMISSIONS } from '@pm/contracts';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { type ChainSimulator, startChainSimulator, startTicker, type Ticker } from '@pm/devnet/chain';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import { DEFAULT_PAYMENTS_SETTINGS, type PaymentsSettings } from '../modules/payments/payments.config.ts';
import type { FeatureSettings } from '../platform/config.ts';
import type { AnyModule } from '../platform/module.ts';
import { startTestIssuer, type TestIssuer } from './issuer.ts';

export const TEST_AUDIENCE = 'https://api.market.test';
export const TEST_ORIGIN = 'http://127.0.0.1:5173';
/** The test apps' METRICS_TOKEN, and the header that reads `/metrics` with it. */
export const TEST_METRICS_TOKEN = 'test-metrics-token';
export const METRICS_AUTH = { authorization: `Bearer ${TEST_METRICS_TOKEN}` };

export interface TestApp {
  app: FastifyInstance;
  /** The Ports API's app (its own listener in production), when asked for with `ports: true`. */
  portsApp: FastifyInstance | undefined;
  db: TestDatabase;
  issuer: TestIssuer;
  /** `{ authorization: 'Bearer …' }` for a customer (or with the given permissions). */
  auth(
    userId: string,
    permissions?: string[],
    claims?: Record<string, unknown>,
  ): Promise<Record<string, string>>;
  /** Same, with both staff permissions. */
  staffAuth(userId: string): Promise<Record<string, string>>;
  /** The devnet chain simulator and ticker the payments module talks to (unless `payments: false`). */
  chain: ChainSimulator | undefined;
  ticker: Ticker | undefined;
  close(): Promise<void>;
}

/** Account keys of the BIP39 test mnemonic (public vectors; never fund them): BTC, LTC, TRON. */
export const TEST_XPUBS = {
  btc: 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs',
  ltc: 'zpub6rPo5mF47z5coVm5rvWv7fv181awb7Vckn5Cf3xQXBVKu18kuBHDhNi1Jrb4br6vVD3ZbrnXemEsWJoR18mZwkUdzwD8TQnHDUCGxqZ6swA',
  trc20usdt:
    'xpub6D1AabNHCupeiLM65ZR9UStMhJ1vCpyV4XbZdyhMZBiJXALQtmn9p42VTQckoHVn8WNqS7dqnJokZHAHcHGoaQgmv8D45oNUKx6DZMNZBCd',
};

/** Payments settings pointing at a running simulator and ticker (test xpubs, 1 BTC / 2 LTC confirmations). */
export function testPaymentsSettings(
  chain: ChainSimulator,
  ticker: Ticker,
  over: Partial<PaymentsSettings> = {},
): PaymentsSettings {
  return {
    ...DEFAULT_PAYMENTS_SETTINGS,
    xpubs: TEST_XPUBS,
    esplora: { btc: { url: chain.esploraUrl('btc') }, ltc: { url: chain.esploraUrl('ltc') } },
    trongrid: { ...DEFAULT_PAYMENTS_SETTINGS.trongrid, url: chain.tronGridUrl },
    rates: { ...DEFAULT_PAYMENTS_SETTINGS.rates, krakenUrl: ticker.url, fallbackUrl: ticker.url },
    confirmations: { btc: 1, ltc: 2 },
    // Pacing is not what these tests measure (payments.budget tests do): no wall-clock waits.
    budgets: {
      btc: { perSecond: 10_000, perDay: 1_000_000 },
      ltc: { perSecond: 10_000, perDay: 1_000_000 },
      tron: { perSecond: 10_000, perDay: 1_000_000 },
    },
    ...over,
  };
}

/**
 * A fresh database, a loopback issuer and the API built on them (for `app.inject`). `modules` are
 * added after the product's own (throwaway routes for a test).
 */
export async function createTestApp(
  label: string,
  o: {
    blockCacheMs?: number;
    modules?: AnyModule[];
    /** Payments settings over the simulator's defaults; false: no simulator, payments unconfigured. */
    payments?: Partial<PaymentsSettings> | false;
    now?: () => number;
    /** Feature settings besides payments (e.g. `purchaseProbeTimeoutMs`). */
    settings?: Omit<FeatureSettings, 'payments'>;
    /** Reverse proxies in front (TRUST_PROXY_HOPS); default none. */
    trustProxyHops?: number;
    /** Also build the Ports API's app (`portsApp`). */
    ports?: boolean;
  } = {},
): Promise<TestApp> {
  const db = await createTestDatabase(label);
  const issuer = await startTestIssuer(TEST_AUDIENCE);
  // The outside world's stand-ins: every test of the API runs the production payments code against them.
  const chain = o.payments === false ? undefined : await startChainSimulator({ host: '127.0.0.1', port: 0 });
  const ticker = o.payments === false ? undefined : await startTicker({ host: '127.0.0.1', port: 0 });
  const payments =
    chain && ticker && o.payments !== false ? testPaymentsSettings(chain, ticker, o.payments) : undefined;
  const build = (surface: 'market' | 'ports') =>
    buildApp({
      surface,
      db,
      oidc: {
        issuer: issuer.issuer,
        audience: TEST_AUDIENCE,
        algorithms: ['ES256'],
        permissionsClaim: 'permissions',
      },
      corsOrigins: [TEST_ORIGIN],
      logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
      blockCacheMs: o.blockCacheMs,
      trustProxyHops: o.trustProxyHops,
      extraModules: o.modules,
      settings: { metricsToken: TEST_METRICS_TOKEN, ...o.settings, payments },
      now: o.now,
    });
  const app = await build('market');
  await app.ready();
  const portsApp = o.ports ? await build('ports') : undefined;
  await portsApp?.ready();
  const auth = async (userId: string, permissions: string[] = [], claims: Record<string, unknown> = {}) => ({
    authorization: `Bearer ${await issuer.sign(userId, { permissions, email: `${userId}@example.test`, ...claims })}`,
  });
  return {
    app,
    portsApp,
    db,
    issuer,
    auth,
    staffAuth: (userId) => auth(userId, [...STAFF_PERMISSIONS]),
    chain,
    ticker,
    async close() {
      await app.close();
      await portsApp?.close();
      await chain?.close();
      await ticker?.close();
      await issuer.close();
      await db.drop();
    },
  };
}
