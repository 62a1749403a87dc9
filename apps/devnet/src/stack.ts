/**
 * The whole product on a fresh PostgreSQL database with free loopback ports, for end-to-end tests.
 * Web app origins: only `http://localhost:<port>`, so `http://127.0.0.1:<port>` is an unknown origin.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createTestDatabase } from '@pm/db/testing';
import { type ChainSimulator, generateThrowawayXpubs } from './chain/index.ts';
import { DEMO_ADMIN_EMAIL, DEMO_CUSTOMER_EMAIL, type DemoCredentials, seedDemoUsers } from './demo.ts';
import type { CaughtMail } from './mail.ts';
import { startProduct } from './product.ts';

export interface TestStack {
  webUrl: string;
  apiUrl: string;
  issuer: string;
  /** The same web app through an origin that is not configured. */
  unknownOriginWebUrl: string;
  mail: {
    list(): Promise<CaughtMail[]>;
    waitFor(to: string, predicate?: (m: CaughtMail) => boolean, timeoutMs?: number): Promise<CaughtMail>;
  };
  demo: DemoCredentials;
  /** The chain simulator: `chain.pay('ltc', address, '0.25')` pays and mines; its page has a pay form. */
  chain: ChainSimulator;
  stopApi(): Promise<void>;
  close(): Promise<void>;
}

/** The built web app; `WEB_DIST_DIR` points at another build (as for the journeys' static server). */
export const WEB_ROOT = process.env.WEB_DIST_DIR ?? join(import.meta.dirname, '../../web/dist');
export const TEST_TERMS_VERSION = 3;

export interface StackOptions {
  label?: string;
  /** Seconds between payments watcher passes (default 30): a payment is credited within one. */
  paymentsWatchIntervalSeconds?: number;
}

export async function startStack(options: StackOptions = {}): Promise<TestStack> {
  const db = await createTestDatabase(options.label ?? 'stack');
  const demo: DemoCredentials = {
    customer: { email: DEMO_CUSTOMER_EMAIL, password: randomBytes(9).toString('base64url') },
    admin: { email: DEMO_ADMIN_EMAIL, password: randomBytes(9).toString('base64url') },
  };
  try {
    await seedDemoUsers(db, demo);
    const product = await startProduct({
      db,
      host: '127.0.0.1',
      publicHost: 'localhost',
      ports: { web: 0, api: 0, identity: 0, mailWeb: 0, smtp: 0 },
      extraWebOrigins: [],
      mailFrom: 'ProxyMarket <no-reply@example.com>',
      apiAudience: 'https://api.proxymarket.local',
      webClientId: 'web',
      apiClient: { clientId: 'public-api', clientSecret: randomBytes(24).toString('base64url') },
      cookieKeys: [randomBytes(24).toString('base64url')],
      webRoot: WEB_ROOT,
      termsVersion: TEST_TERMS_VERSION,
      payments: {
        chainPort: 0,
        tickerPort: 0,
        xpubs: generateThrowawayXpubs(),
        watchIntervalSeconds: options.paymentsWatchIntervalSeconds,
      },
      support: {
        email: 'support@example.com',
        messenger: '@proxymarket_support',
        messengerUrl: 'https://t.me/proxymarket_support',
      },
    });
    const mail = product.mail!;
    return {
      webUrl: product.webUrl,
      apiUrl: product.apiUrl,
      issuer: product.issuer,
      unknownOriginWebUrl: product.webUrl.replace('localhost', '127.0.0.1'),
      mail: { list: async () => mail.list(), waitFor: (...a) => mail.waitFor(...a) },
      demo,
      chain: product.chain!,
      stopApi: product.stopApi,
      async close() {
        await product.close();
        await db.drop();
      },
    };
  } catch (e) {
    await db.drop();
    throw e;
  }
}
